package yamlerr

import (
	"fmt"
	"github.com/piwasm/pi/internal/lazyre"
	"strconv"
	"strings"
)

// parserProblems are the messages of yaml.v3's parser (as opposed to
// its scanner). For these yaml.v3 reports a 0-based line (and none at all
// on the first line); scanner errors carry a 1-based line.
var parserProblems = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

var linePrefix = lazyre.New(`^yaml: line (\d+): `)

// Split returns the 1-based line of a yaml.v3 syntax error in src (0 when
// it does not say) and its message without the "yaml: line N:" prefix. A
// problem found at the end of the input (an unclosed list, say) is placed on
// src's last line rather than on the line after it.
func Split(err error, src []byte) (line int, msg string) {
	msg = err.Error()
	if m := linePrefix().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	for _, p := range parserProblems {
		if msg == p {
			line++
			break
		}
	}
	if n := lineCount(src); line > n {
		line = n
	}
	return line, msg
}

func lineCount(src []byte) int {
	n := 0
	for i, c := range src {
		if c == '\n' || i == len(src)-1 {
			n++
		}
	}
	return n
}

// Message is Split's result as "line N: message" (or the message alone).
func Message(err error, src []byte) string {
	line, msg := Split(err, src)
	if line > 0 {
		return fmt.Sprintf("line %d: %s", line, msg)
	}
	return msg
}
