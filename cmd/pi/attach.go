package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/prompt"
)

// maxAttach bounds one @file: a file bigger than this is not pasted into a
// message (the agent can read it with its tools).
const maxAttach = 8 << 20

// attachFiles reads the @path arguments into the first message, as the
// established harness does: a text file as <file name="ABS">…</file>, an
// image (png, jpeg, gif, webp, by content) as an image block with an empty
// <file> reference; empty files are skipped. A missing or unreadable file is
// an error naming it.
func attachFiles(wd, home string, paths []string) (string, []prompt.Block, error) {
	var text strings.Builder
	var images []prompt.Block
	for _, p := range paths {
		abs := p
		if rest, ok := strings.CutPrefix(p, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == filepath.Separator) {
			abs = filepath.Join(home, rest)
		}
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(wd, abs)
		}
		abs = filepath.Clean(abs)
		fi, err := os.Stat(abs)
		if err != nil {
			return "", nil, fmt.Errorf("@%s: %w", p, err)
		}
		if !fi.Mode().IsRegular() {
			return "", nil, fmt.Errorf("@%s: not a regular file", p)
		}
		if fi.Size() == 0 {
			continue
		}
		if fi.Size() > maxAttach {
			return "", nil, fmt.Errorf("@%s: %d bytes is over the %d MiB an attached file may have; ask the agent to read it instead", p, fi.Size(), maxAttach>>20)
		}
		f, err := os.Open(abs)
		if err != nil {
			return "", nil, fmt.Errorf("@%s: %w", p, err)
		}
		data, err := io.ReadAll(io.LimitReader(f, maxAttach+1))
		f.Close()
		if err != nil {
			return "", nil, fmt.Errorf("@%s: %w", p, err)
		}
		switch mime := http.DetectContentType(data); mime {
		case "image/png", "image/jpeg", "image/gif", "image/webp":
			images = append(images, prompt.Block{Type: "image", MimeType: mime, Data: base64.StdEncoding.EncodeToString(data)})
			fmt.Fprintf(&text, "<file name=%q></file>\n", abs)
		default:
			s := strings.TrimPrefix(string(data), "\ufeff")
			fmt.Fprintf(&text, "<file name=%q>\n%s\n</file>\n", abs, s)
		}
	}
	return text.String(), images, nil
}
