package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/piwasm/pi/abi"
)

// maxToolName is the providers' limit on a function name.
const maxToolName = 64

// ToolName is the pi name of a server's tool, as the established harness
// builds it: mcp__<server>__<tool> with every character other than ASCII
// letters, digits and '_' replaced by '_' (per UTF-16 unit, as there). A name over 64 characters, or one
// taken says so, is cut and given an 8-hex-digit hash of the server and
// tool names, so it stays unique and stable.
func ToolName(server, tool string, taken func(string) bool) string {
	raw := abi.MCPToolPrefix + server + "__" + tool
	var b strings.Builder
	b.Grow(len(raw))
	for _, r := range raw {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			b.WriteRune(r)
		} else if r > 0xFFFF {
			b.WriteString("__") // a surrogate pair in the established harness's UTF-16
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) <= maxToolName && (taken == nil || !taken(name)) {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	hash := hex.EncodeToString(sum[:])[:8]
	if cut := maxToolName - len(hash) - 1; len(name) > cut {
		name = name[:cut]
	}
	return name + "_" + hash
}

// toolNames names all of one server's tools: tools whose mapped names
// collide all get the hash, as in the established harness.
func toolNames(server string, remotes []string, taken func(string) bool) []string {
	count := map[string]int{}
	for _, r := range remotes {
		count[ToolName(server, r, nil)]++
	}
	out := make([]string, len(remotes))
	for i, r := range remotes {
		plain := ToolName(server, r, nil)
		if count[plain] > 1 {
			out[i] = ToolName(server, r, func(string) bool { return true })
			continue
		}
		out[i] = ToolName(server, r, taken)
	}
	return out
}
