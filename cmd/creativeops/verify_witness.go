package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/creativeops/creativeops/ipreg"
)

// witnessVerify is what verify's --witness-key and --min-witnesses ask:
// that independent witnesses cosigned the certificate's checkpoint.
type witnessVerify struct {
	keys []string
	min  int
}

// witnessKeysValue is the repeatable --witness-key.
type witnessKeysValue struct{ keys *[]string }

func (v witnessKeysValue) String() string {
	if v.keys == nil {
		return ""
	}
	return strings.Join(*v.keys, ",")
}

func (v witnessKeysValue) Set(s string) error {
	if _, err := ipreg.ParseWitnessKey(s); err != nil {
		return err
	}
	*v.keys = append(*v.keys, strings.TrimSpace(s))
	return nil
}

// witnessVerifyFlags declares verify's witness flags.
func witnessVerifyFlags(fs *flagSet) *witnessVerify {
	w := &witnessVerify{}
	fs.Var(witnessKeysValue{&w.keys}, "witness-key", "a witness's cosignature verifier key (repeatable): check that the checkpoint carries its valid cosignature")
	fs.Var(intValue{&w.min, 1}, "min-witnesses", "how many of the --witness-key witnesses must have cosigned (default: all of them)")
	return w
}

// check adds the witness_cosignatures check to the report when witness
// keys were given.
func (w *witnessVerify) check(fs *flagSet, report *ipreg.Report, bundle ipreg.Bundle) error {
	if len(w.keys) == 0 {
		if fs.isSet("min-witnesses") {
			return usagef("--min-witnesses needs at least one --witness-key")
		}
		return nil
	}
	min := w.min
	if !fs.isSet("min-witnesses") {
		min = len(w.keys)
	}
	if min > len(w.keys) {
		return usagef("--min-witnesses %s exceeds the %d --witness-key given", strconv.Itoa(min), len(w.keys))
	}
	report.Add(ipreg.CheckCosignatures(bundle.Checkpoint, w.keys, min))
	return nil
}

// witnessesValue is serve's repeatable --witness VKEY@URL; the
// environment may list several, separated by spaces.
type witnessesValue struct{ p *[]ipreg.Witness }

func (v witnessesValue) String() string {
	if v.p == nil {
		return ""
	}
	var s []string
	for _, w := range *v.p {
		s = append(s, w.VerifierKey+"@"+w.URL)
	}
	return strings.Join(s, " ")
}

func (v witnessesValue) Set(s string) error {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return fmt.Errorf("want VKEY@URL")
	}
	for _, f := range fields {
		w, err := ipreg.ParseWitness(f)
		if err != nil {
			return err
		}
		for _, have := range *v.p {
			if have.Name() == w.Name() {
				return fmt.Errorf("witness %s is given twice", w.Name())
			}
		}
		*v.p = append(*v.p, w)
	}
	return nil
}
