//go:build !noui

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/ui"
)

// importSession copies a session file next to cwd's sessions (as the
// established harness's /import does: same base name, "-N" added when
// taken, never overwriting) and opens the copy, which checks it as
// --session would. A file already among them is opened in place. A copy
// that does not open is removed again.
func importSession(dir, cwd, src string) (string, *session.Transcript, error) {
	if !filepath.IsAbs(src) {
		src = filepath.Join(cwd, src)
	}
	fi, err := os.Stat(src)
	if err != nil {
		return "", nil, err
	}
	if !fi.Mode().IsRegular() {
		return "", nil, fmt.Errorf("%s is not a regular file", src)
	}
	if fi.Size() > maxImportBytes {
		return "", nil, fmt.Errorf("%s is %d MiB; sessions over %d MiB are not imported", src, fi.Size()>>20, maxImportBytes>>20)
	}
	if filepath.Dir(src) == dir {
		tr, err := session.OpenAppend(src)
		return src, tr, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, err
	}
	base := filepath.Base(src)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	var out *os.File
	var dst string
	for n := 0; n < 1000; n++ {
		dst = filepath.Join(dir, base)
		if n > 0 {
			dst = filepath.Join(dir, fmt.Sprintf("%s-%d%s", stem, n, ext))
		}
		out, err = os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, os.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", nil, err
	}
	in, err := os.Open(src)
	if err == nil {
		_, err = io.Copy(out, io.LimitReader(in, maxImportBytes))
		in.Close()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	var tr *session.Transcript
	if err == nil {
		tr, err = session.OpenAppend(dst)
	}
	if err != nil {
		os.Remove(dst)
		return "", nil, err
	}
	return dst, tr, nil
}

// maxImportBytes bounds /import as a session file is bounded elsewhere.
const maxImportBytes = 512 << 20

func trustStatus(agentDir, cwd string, current bool) (ui.TrustStatus, error) {
	st := ui.TrustStatus{Dir: cwd, Saved: "none", Current: current}
	if p := filepath.Dir(cwd); p != cwd {
		st.Parent = p
	}
	d, found, err := resources.LookupTrust(agentDir, cwd)
	if err != nil {
		return st, err
	}
	if found {
		label := "untrusted"
		if d.Trusted {
			label = "trusted"
		}
		if d.Dir != cwd {
			st.Saved = label + " (inherited from " + d.Dir + ")"
		} else {
			st.Saved = label + " (" + d.Dir + ")"
		}
	}
	return st, nil
}

func setTrust(agentDir, cwd string, c ui.TrustChoice) error {
	yes, no := true, false
	switch c {
	case ui.TrustHere:
		return resources.UpdateTrust(agentDir, cwd, &yes)
	case ui.TrustParent:
		if err := resources.UpdateTrust(agentDir, filepath.Dir(cwd), &yes); err != nil {
			return err
		}
		return resources.UpdateTrust(agentDir, cwd, nil)
	case ui.Distrust:
		return resources.UpdateTrust(agentDir, cwd, &no)
	case ui.Revoke:
		return resources.UpdateTrust(agentDir, cwd, nil)
	}
	return fmt.Errorf("unknown trust choice %d", c)
}

// shareGist uploads page as a secret gist with the gh command (the
// established harness's way when gh is signed in) and returns its URL.
func shareGist(ctx context.Context, page []byte) (string, error) {
	gh, err := exec.LookPath("gh")
	if err != nil {
		return "", errors.New("the gh command is not installed: /share publishes through GitHub's gh (or use /export)")
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, gh, "auth", "status").CombinedOutput(); err != nil {
		return "", fmt.Errorf("gh is not signed in (gh auth login): %s", strings.TrimSpace(lastLineOf(string(out))))
	}
	f, err := os.CreateTemp("", "pi-session-*.html")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(page)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, gh, "gist", "create", "--desc", "pi session", f.Name())
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("gh gist create: %v: %s", err, strings.TrimSpace(lastLineOf(stderr.String())))
	}
	url := strings.TrimSpace(lastLineOf(string(out)))
	if !strings.HasPrefix(url, "https://") {
		return "", fmt.Errorf("gh gist create answered %q, not an address", url)
	}
	return url, nil
}

func lastLineOf(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
