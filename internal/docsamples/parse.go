// Package docsamples extracts the runnable code samples of the Markdown
// documentation and runs them against a live server, so that a sample that
// no longer matches the service fails the build instead of its reader.
//
// A sample is runnable when the line before its fence is the HTML comment
// <!-- run --> (invisible once rendered). <!-- run: COMMAND --> also runs
// COMMAND with bash in the working directory first, for what a sample
// assumes the reader has (printf test > manuscript.pdf). The next block
// after a sample, when marked <!-- output -->, is output it must print.
package docsamples

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// Sample is one runnable fenced block.
type Sample struct {
	File  string // as given to Parse, e.g. docs/api.md
	Line  int    // the 1-based line of the block's first line of code
	Lang  string // sh, python, js or ts
	Setup string // the marker's command, run with sh before the sample
	Code  string // the block's lines, each ending in a newline
	// Expect is the <!-- output --> block's lines: each must match a line
	// of the output, in order; "..." in one matches any text.
	Expect []string
}

func (s Sample) String() string { return fmt.Sprintf("%s:%d (%s)", s.File, s.Line, s.Lang) }

// languages maps a fence's info string to the runner that takes it.
var languages = map[string]string{
	"sh": "sh", "bash": "sh", "shell": "sh",
	"python": "python", "py": "python",
	"js": "js", "javascript": "js", "mjs": "js",
	"ts": "ts", "typescript": "ts",
}

var (
	marker       = regexp.MustCompile(`^<!--\s*run(?:\s*:\s*(.*?))?\s*-->$`)
	outputMarker = regexp.MustCompile(`^<!--\s*output\s*-->$`)
	fence        = regexp.MustCompile("^(```+|~~~+)\\s*([^\\s`]*)")
)

// Parse returns the runnable samples of a Markdown document. A marker that
// is not followed by a fence of a known language, or a fence left open, is
// an error naming the line: a marked sample is never skipped silently.
func Parse(file string, src []byte) ([]Sample, error) {
	var (
		out     []Sample
		lines   []string
		sc      = bufio.NewScanner(bytes.NewReader(src))
		pending = -1 // line index of a marker waiting for its fence
		setup   string
	)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if outputMarker.MatchString(line) {
			// Taken with its sample below; here only when misplaced.
			return nil, fmt.Errorf("%s:%d: output marker not on the block after a runnable sample", file, i+1)
		}
		if m := marker.FindStringSubmatch(line); m != nil {
			if pending >= 0 {
				return nil, fmt.Errorf("%s:%d: run marker not followed by a code block", file, pending+1)
			}
			pending, setup = i, m[1]
			continue
		}
		f := fence.FindStringSubmatch(line)
		if f == nil {
			if pending >= 0 && line != "" {
				return nil, fmt.Errorf("%s:%d: run marker not followed by a code block", file, pending+1)
			}
			continue
		}
		// A fence: find where it closes, whether or not it is marked, so
		// that a marker-looking line inside a block is not taken for one.
		end := -1
		for j := i + 1; j < len(lines); j++ {
			t := strings.TrimSpace(lines[j])
			if strings.HasPrefix(t, f[1]) && strings.Trim(t, f[1][:1]) == "" {
				end = j
				break
			}
		}
		if end < 0 {
			return nil, fmt.Errorf("%s:%d: code block is never closed", file, i+1)
		}
		if pending >= 0 {
			lang, ok := languages[strings.ToLower(f[2])]
			if !ok {
				return nil, fmt.Errorf("%s:%d: run marker on a %q block: runnable samples are sh, bash, python, js or ts", file, i+1, f[2])
			}
			var code strings.Builder
			for _, l := range lines[i+1 : end] {
				code.WriteString(l)
				code.WriteByte('\n')
			}
			sample := Sample{File: file, Line: i + 2, Lang: lang, Setup: setup, Code: code.String()}
			pending = -1
			// An expected-output block: the marker and a fence after the
			// sample, with at most prose between them (no other block).
			j := end + 1
			for j < len(lines) && !outputMarker.MatchString(strings.TrimSpace(lines[j])) &&
				!marker.MatchString(strings.TrimSpace(lines[j])) && fence.FindStringSubmatch(strings.TrimSpace(lines[j])) == nil {
				j++
			}
			if j < len(lines) && outputMarker.MatchString(strings.TrimSpace(lines[j])) {
				if j+1 >= len(lines) || fence.FindStringSubmatch(strings.TrimSpace(lines[j+1])) == nil {
					return nil, fmt.Errorf("%s:%d: output marker not followed by a code block", file, j+1)
				}
				open := fence.FindStringSubmatch(strings.TrimSpace(lines[j+1]))[1]
				k := j + 2
				for ; k < len(lines); k++ {
					t := strings.TrimSpace(lines[k])
					if strings.HasPrefix(t, open) && strings.Trim(t, open[:1]) == "" {
						break
					}
					if t != "" {
						sample.Expect = append(sample.Expect, t)
					}
				}
				if k == len(lines) {
					return nil, fmt.Errorf("%s:%d: code block is never closed", file, j+2)
				}
				end = k
			}
			out = append(out, sample)
		}
		i = end
	}
	if pending >= 0 {
		return nil, fmt.Errorf("%s:%d: run marker not followed by a code block", file, pending+1)
	}
	return out, nil
}
