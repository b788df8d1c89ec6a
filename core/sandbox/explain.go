package sandbox

import (
	"fmt"
	"github.com/piwasm/pi/internal/lazyre"
	"path/filepath"
	"strings"
)

var (
	// A path right before ": Permission denied" and the like, bare or
	// quoted the way coreutils quote it.
	deniedPathRe = lazyre.New(`(?i)(?:'([^'\n]+)'|"([^"\n]+)"|(~?/[^\s:'"]*))\s*:\s*(?:permission denied|read-only file system|operation not permitted)`)
	// Go's *PathError form: "open /etc/x: permission denied".
	goPathRe   = lazyre.New(`(?i)\b(?:open|mkdir|remove|rename|create|chmod|symlink|link|unlinkat|openat|lstat|truncate)\s+(~?/[^\s:]+)\s*:\s*(?:permission denied|read-only file system|operation not permitted)`)
	fsDeniedRe = lazyre.New(`(?i)permission denied|read-only file system|operation not permitted`)
	// The proxy's refusal (its 403 body) and the note AnnotateBash adds
	// name the host this way.
	netRefusedRe = lazyre.New(`host (\S+) is refused by the network allow-list`)
	netDenied    = lazyre.New(`(?i)socket: operation not permitted|could not resolve host|couldn't resolve host|temporary failure in name resolution|network is unreachable|name or service not known|failed to establish a new connection|getaddrinfo|dial tcp[^\n]*operation not permitted`)
)

// Explain looks at a finished command's output (stdout and stderr, as the
// model will see them) and exit code and, when the failure looks like a
// sandbox denial, returns a note for the model that says what the sandbox
// refused and how the user can allow it. It returns "" for a successful
// command, for mode off, and for failures that do not look like denials.
// It is a heuristic: it names a path only when the output names one that
// the policy does not let commands write.
func (p *Policy) Explain(output string, exitCode int) string {
	return p.explain(output, exitCode, nil)
}

// explainWith is Explain for a failed command during which the
// allow-list proxy refused the hosts in refused.
func (p *Policy) explainWith(output string, refused []refusal) string {
	return p.explain(output, 1, refused)
}

func (p *Policy) explain(output string, exitCode int, refused []refusal) string {
	if exitCode == 0 || p == nil || p.Mode == ModeOff || !p.Confined() {
		return ""
	}
	var blocked, protected []string
	seen := map[string]bool{}
	collect := func(path string) {
		if path == "" || seen[path] {
			return
		}
		seen[path] = true
		abs := path
		if !filepath.IsAbs(abs) {
			if p.cwd == "" {
				return
			}
			abs = filepath.Join(p.cwd, abs)
		}
		if _, ok := p.protectedBy(resolve(abs)); ok && p.Mode == ModeWorkspace {
			protected = append(protected, path)
		} else if filepath.IsAbs(path) && !p.Writable(resolve(abs)) {
			blocked = append(blocked, path)
		}
	}
	for _, m := range deniedPathRe().FindAllStringSubmatch(output, 20) {
		collect(m[1] + m[2] + m[3])
	}
	for _, m := range goPathRe().FindAllStringSubmatch(output, 20) {
		collect(m[1])
	}
	for _, m := range relReadOnlyRe().FindAllStringSubmatch(output, 20) {
		collect(m[1])
	}
	var notes []string
	if len(blocked) > 0 {
		what := "the working tree, the temp dir and the build caches"
		if p.Mode == ModeReadOnly {
			what = "nothing (read-only mode)"
		}
		if len(blocked) > 3 {
			blocked = append(blocked[:3], "…")
		}
		notes = append(notes, fmt.Sprintf("The sandbox (mode %s) refused writing %s: commands may write %s. Do not try to work around it; if the change is needed, tell the user, who can add the directory to \"writableRoots\" under \"sandbox\" in settings or run pi with --sandbox off.", p.Mode, strings.Join(blocked, ", "), what))
	}
	if len(protected) > 0 {
		notes = append(notes, protectedNote(protected))
	} else if len(blocked) == 0 && p.Mode == ModeReadOnly && fsDeniedRe().MatchString(output) {
		notes = append(notes, "The sandbox is read-only: commands cannot write files. If writing is needed, tell the user, who can run pi with --sandbox workspace.")
	}
	if note := p.denyReadNote(output); note != "" {
		notes = append(notes, note)
	}
	if p.NetAllow != nil {
		if note := p.netAllowNote(output, refused); note != "" {
			notes = append(notes, note)
		}
	} else if !p.Network && netDenied().MatchString(output) {
		notes = append(notes, "The sandbox has the network off: commands cannot open internet sockets (IPv4/IPv6). If network access is needed, tell the user, who can run pi with --sandbox-network on or set \"network\": true under \"sandbox\" in settings.")
	}
	return strings.Join(notes, "\n")
}

// netAllowNote explains an allow-list refusal: the hosts refused (those
// the proxy recorded during the command, and those its answers in output
// name) or, without any, a failure that looks like a program going
// around the proxy. Empty when neither.
func (p *Policy) netAllowNote(output string, refused []refusal) string {
	var hosts []string
	seen := map[string]bool{}
	add := func(h string) {
		if !seen[h] && len(hosts) < 5 {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	for _, r := range refused {
		add(r.Host)
	}
	for _, m := range netRefusedRe().FindAllStringSubmatch(output, 20) {
		add(m[1])
	}
	list := strings.Join(p.NetAllow, ", ")
	if len(hosts) == 0 {
		if !netDenied().MatchString(output) {
			return ""
		}
		return fmt.Sprintf("The sandbox lets commands reach only the hosts on its network allow-list (%s), through pi's proxy (HTTPS_PROXY and HTTP_PROXY are set): a program that ignores the proxy, resolves names itself or uses UDP cannot connect. If other access is needed, tell the user.", list)
	}
	var parts []string
	for _, h := range hosts {
		part := "host " + h + " is refused by the network allow-list"
		for _, r := range refused {
			if r.Host == h && r.Reason != reasonNotListed {
				part += " (" + r.Reason + ")"
				break
			}
		}
		parts = append(parts, part)
	}
	return "The sandbox kept the command from the network: " + strings.Join(parts, "; ") + ". Commands may reach only " + list + ", through pi's proxy. Do not try to work around it; if the host is needed, tell the user, who can add it to \"allow\" in \"network\" under \"sandbox\" in settings, or run pi with --sandbox-network on."
}
