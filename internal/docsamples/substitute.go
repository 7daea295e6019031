package docsamples

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// The placeholders the documentation writes for what a reader has at hand.
const (
	// DocAddr is the address the samples call, the default of --http-addr.
	DocAddr = "localhost:8080"
	// KeyPlaceholder stands for the first start's key.
	KeyPlaceholder = "co_live_..."
)

var (
	// An id placeholder: a type prefix and an elided ULID (cr_01k...).
	idPlaceholder = regexp.MustCompile(`\b([a-z]+)_01k\.\.\.`)
	// An id as the service prints it: a type prefix and a lowercase ULID.
	printedID = regexp.MustCompile(`\b([a-z]+)_[0-9a-hjkmnp-tv-z]{26}\b`)
)

// Values are what the placeholders of one document's samples stand for.
type Values struct {
	URL string            // the live server, http://127.0.0.1:port
	Key string            // an all-scopes key
	IDs map[string]string // type prefix → the id an earlier sample printed last
}

// Record remembers the ids a sample printed: for each type prefix, the
// first one in the output (a creation's own id comes before the ids it
// refers to; a list is newest first), replacing an earlier sample's.
func (v *Values) Record(output string) {
	if v.IDs == nil {
		v.IDs = map[string]string{}
	}
	seen := map[string]bool{}
	for _, m := range printedID.FindAllStringSubmatch(output, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			v.IDs[m[1]] = m[0]
		}
	}
}

// Substitute puts the live values in place of a sample's placeholders:
// localhost:8080 becomes the server's address, co_live_... the key, and
// cr_01k... in code (comments show example output and are left alone) the
// cr_ id an earlier sample of the same document printed. An id placeholder
// in code that no earlier sample printed an id for is an error.
func (v Values) Substitute(lang, code string) (string, error) {
	u, err := url.Parse(v.URL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("server URL %q: not an http URL", v.URL)
	}
	code = strings.ReplaceAll(code, DocAddr, u.Host)
	code = strings.ReplaceAll(code, KeyPlaceholder, v.Key)
	var missing []string
	var out strings.Builder
	for _, part := range splitComments(lang, code) {
		if part.comment {
			out.WriteString(part.text)
			continue
		}
		out.WriteString(idPlaceholder.ReplaceAllStringFunc(part.text, func(p string) string {
			prefix := p[:strings.IndexByte(p, '_')]
			id, ok := v.IDs[prefix]
			if !ok {
				missing = append(missing, p)
				return p
			}
			return id
		}))
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("%s: no earlier sample in this document printed such an id", strings.Join(missing, ", "))
	}
	return out.String(), nil
}

type span struct {
	text    string
	comment bool
}

// splitComments cuts code into code and comment spans: # to the end of the
// line in sh and Python, // in JavaScript, outside quotes. Quotes are
// followed across lines, as a curl -d '{...}' spans several; escapes are
// honoured where the language has them (not in sh's single quotes).
func splitComments(lang, code string) []span {
	var (
		out   []span
		start int
		quote byte // the open quote, 0 outside
	)
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case quote != 0:
			if c == '\\' && !(lang == "sh" && quote == '\'') {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || (c == '`' && (lang == "js" || lang == "ts")):
			quote = c
		case c == '\\' && lang == "sh":
			i++
		case (lang == "sh" || lang == "python") && c == '#' && (lang == "python" || i == 0 || strings.ContainsRune(" \t\n;|&(", rune(code[i-1]))),
			(lang == "js" || lang == "ts") && c == '/' && i+1 < len(code) && code[i+1] == '/':
			end := strings.IndexByte(code[i:], '\n')
			if end < 0 {
				end = len(code)
			} else {
				end += i
			}
			out = append(out, span{text: code[start:i]}, span{text: code[i:end], comment: true})
			start, i = end, end-1
		}
	}
	return append(out, span{text: code[start:]})
}

// splitCommands cuts a shell sample into its commands, so that each runs
// with the ids printed by the ones before it, as a reader types them. A
// command ends with a line that ends outside quotes and not in \, |, &&,
// || or an opening brace or parenthesis; blank and comment-only lines
// belong to the command after them.
func splitCommands(code string) []string {
	var (
		out   []string
		start int
		quote byte
		last  byte // the last character of code (not comment) on this line
		code0 bool // this line has code
	)
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		case c == '\'' || c == '"':
			quote, last, code0 = c, c, true
			continue
		case c == '\\' && i+1 < len(code) && code[i+1] != '\n':
			i++
			last, code0 = 'x', true
			continue
		case c == '#' && (i == 0 || strings.ContainsRune(" \t\n;|&(", rune(code[i-1]))):
			if end := strings.IndexByte(code[i:], '\n'); end >= 0 {
				i += end - 1
			} else {
				i = len(code) - 1
			}
			continue
		case c != '\n':
			if c != ' ' && c != '\t' {
				last, code0 = c, true
			}
			continue
		}
		// End of a line outside quotes.
		if code0 && !strings.ContainsRune("\\|&{(", rune(last)) {
			out = append(out, code[start:i+1])
			start = i + 1
		}
		last, code0 = 0, false
	}
	if strings.TrimSpace(code[start:]) != "" {
		out = append(out, code[start:])
	}
	return out
}
