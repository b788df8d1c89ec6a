package pi

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/piwasm/pi/abi"
)

// The SDK and every package of this module it imports (TestSDKComplete
// keeps the list honest).
//
//go:embed go.mod abi/*.go abi/jsonstr/*.go sdk-guest/*.go
var sdkFS embed.FS

//go:embed plugins/examples/team-section-as/package.json plugins/examples/team-section-as/package-lock.json plugins/examples/team-section-as/assembly/json.ts
var asFS embed.FS

//go:embed CHANGELOG.md
var changelog string

// Changelog is pi's CHANGELOG.md, newest version first.
func Changelog() string { return changelog }

// asExample is the AssemblyScript example the scaffold's npm files come
// from; its name is replaced by the new extension's.
const asExample = "team-section-as"

// SDKFile is one file of the Go SDK module as `pi ext init` writes it.
type SDKFile struct {
	Path string // slash-separated, relative to the SDK module's root
	Data []byte
}

// SDKModule returns the files of a Go module github.com/piwasm/pi holding
// the packages abi and sdk-guest (their non-test sources), a go.mod with the
// Go version pi is built with, and a VERSION file naming SDKVersion. (abi
// uses abi/jsonstr, which comes along.)
func SDKModule() []SDKFile {
	var files []SDKFile
	var goLine string
	if mod, err := sdkFS.ReadFile("go.mod"); err == nil {
		for _, l := range strings.Split(string(mod), "\n") {
			if strings.HasPrefix(l, "go ") {
				goLine = l
			}
		}
	}
	files = append(files, SDKFile{Path: "go.mod", Data: []byte("// The pi extension SDK, written by `pi ext init` (see VERSION).\nmodule github.com/piwasm/pi\n\n" + goLine + "\n")})
	for _, p := range sources() {
		b, _ := sdkFS.ReadFile(p)
		files = append(files, SDKFile{Path: p, Data: b})
	}
	files = append(files, SDKFile{Path: "VERSION", Data: []byte(SDKVersion() + "\n")})
	return files
}

// sources lists the embedded SDK sources, sorted, without tests.
func sources() []string {
	var out []string
	_ = fs.WalkDir(sdkFS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && path.Ext(p) == ".go" && !strings.HasSuffix(p, "_test.go") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// SDKVersion names the embedded SDK: the ABI version it speaks and a
// digest of its sources, so that two pi binaries with the same SDK write
// the same version.
func SDKVersion() string {
	h := sha256.New()
	for _, p := range sources() {
		b, _ := sdkFS.ReadFile(p)
		h.Write([]byte(p))
		h.Write([]byte{0})
		h.Write(b)
	}
	return "abi" + strconv.Itoa(abi.Version) + "-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// AssemblyScriptFiles returns the npm files of the AssemblyScript
// scaffold: package.json and package-lock.json (the versions the example
// is built and tested with; name and module renamed to name) and
// assembly/json.ts (a small JSON helper).
func AssemblyScriptFiles(name string) []SDKFile {
	var out []SDKFile
	for _, f := range []string{"package.json", "package-lock.json", "assembly/json.ts"} {
		b, _ := asFS.ReadFile("plugins/examples/" + asExample + "/" + f)
		if f != "assembly/json.ts" {
			b = []byte(strings.ReplaceAll(string(b), asExample, name))
		}
		out = append(out, SDKFile{Path: f, Data: b})
	}
	return out
}
