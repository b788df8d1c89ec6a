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
	// keep is the number of leading submatch groups kept as written (a
	// key name before the secret, say).
	keep bool
}

// rules are checked in order; a private key block first, since the
// other patterns could match inside one.
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
	n := 0
	for _, r := range rules {
		if !mayContain(s, r.kind) {
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

// mayContain is a cheap test that lets most outputs skip a rule's
// regular expression, which inside the sandbox costs far more than a
// substring search.
func mayContain(s, kind string) bool {
	switch kind {
	case "private-key":
		return strings.Contains(s, "PRIVATE KEY")
	case "aws-access-key":
		return strings.Contains(s, "AKIA") || strings.Contains(s, "ASIA") || strings.Contains(s, "ABIA") || strings.Contains(s, "ACCA")
	case "aws-secret-key":
		return strings.Contains(strings.ToLower(s), "secret")
	case "github-token":
		return strings.Contains(s, "gh") || strings.Contains(s, "github_pat_")
	case "slack-token":
		return strings.Contains(s, "xox")
	case "openai-key":
		return strings.Contains(s, "sk-")
	}
	return true
}
