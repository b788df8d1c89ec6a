// The redaction rules, apart from the hook, so that go test checks them on
// the host (redact_test.go).
package main

import (
	"regexp"
	"strings"
)

// rule is one kind of secret: a pattern and the name shown in its mask.
type rule struct {
	kind string
	re   *regexp.Regexp
	// keep says the first submatch (a key name before the secret, say)
	// stays as written.
	keep bool
}

// rules are checked in order; a private key block first, since the
// other patterns could match inside one. candidates knows each rule by
// its index.
var rules = []rule{
	{kind: "private-key", re: regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|$)`)},
	{kind: "aws-access-key", re: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`)},
	{kind: "aws-secret-key", keep: true, re: regexp.MustCompile(`(?i)(aws_?secret_?access_?key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}`)},
	{kind: "github-token", re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`)},
	{kind: "slack-token", re: regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,250}\b`)},
	{kind: "openai-key", re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}\b`)},
}

// Redact replaces every secret in s with mask and the secret's kind, and
// reports how many it replaced.
func Redact(s, mask string) (string, int) {
	kinds := candidates(s)
	if kinds == 0 {
		return s, 0
	}
	n := 0
	for i, r := range rules {
		if kinds&(1<<i) == 0 {
			continue
		}
		label := strings.TrimSuffix(mask, "]") + ":" + r.kind + "]"
		if !strings.HasSuffix(mask, "]") {
			label = mask
		}
		s = r.re.ReplaceAllStringFunc(s, func(m string) string {
			n++
			if r.keep {
				sub := r.re.FindStringSubmatch(m)
				return sub[1] + label
			}
			return label
		})
	}
	return s, n
}

// candidates returns a bit per rule (in rules order) whose secret may be
// in s, from one pass over its bytes: most outputs hold none, and inside
// the sandbox a pass per kind, or a regular expression, costs far more
// than on the host.
func candidates(s string) uint {
	var kinds uint
	for i := 0; i+3 <= len(s); i++ {
		switch s[i] {
		case '-':
			if strings.HasPrefix(s[i:], "-----BEGIN ") {
				kinds |= 1 << 0
			}
		case 'A':
			if t := s[i:]; strings.HasPrefix(t, "AKIA") || strings.HasPrefix(t, "ASIA") || strings.HasPrefix(t, "ABIA") || strings.HasPrefix(t, "ACCA") {
				kinds |= 1 << 1
			}
			fallthrough
		case 'a':
			if len(s)-i >= 3 && (s[i+1]|0x20) == 'w' && (s[i+2]|0x20) == 's' {
				kinds |= 1 << 2
			}
		case 'g':
			if s[i+1] == 'h' || strings.HasPrefix(s[i:], "github_pat_") {
				kinds |= 1 << 3
			}
		case 'x':
			if s[i+1] == 'o' && s[i+2] == 'x' {
				kinds |= 1 << 4
			}
		case 's':
			if s[i+1] == 'k' && s[i+2] == '-' {
				kinds |= 1 << 5
			}
		}
	}
	return kinds
}
