package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/creativeops/creativeops/ipreg"
)

// pemFiles is a repeatable flag of PEM file names.
type pemFiles []string

func (p *pemFiles) String() string { return strings.Join(*p, ",") }

func (p *pemFiles) Set(s string) error {
	if s == "" {
		return fmt.Errorf("empty file name")
	}
	*p = append(*p, s)
	return nil
}

// tsaCAFlag declares verify's --tsa-ca.
func tsaCAFlag(fs *flagSet) *pemFiles {
	var files pemFiles
	fs.Var(&files, "tsa-ca", "CA certificates (PEM file, repeatable) of the independent timestamp authorities whose tokens the certificate carries; without it their signers are reported unchecked")
	return &files
}

// withExternalTimestamps adds to report the checks of the bundle's
// timestamps from independent authorities, against the CAs of files.
func withExternalTimestamps(report ipreg.Report, bundle ipreg.Bundle, files pemFiles) (ipreg.Report, error) {
	var pem bytes.Buffer
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return report, fmt.Errorf("--tsa-ca: %w", err)
		}
		pem.Write(data)
		pem.WriteByte('\n')
	}
	checks, err := ipreg.VerifyExternal(bundle, pem.Bytes())
	if err != nil {
		return report, usagef("--tsa-ca: %v", err)
	}
	report, _ = report.WithChecks(checks...)
	return report, nil
}
