package clipimage

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Image is the clipboard's image.
type Image struct {
	Data     []byte
	MimeType string
}

// Env is what Read needs of the process: its platform, environment and a
// way to run a tool (exec.CommandContext's output in production).
type Env struct {
	GOOS   string
	Getenv func(string) string
	// Run runs name with args and returns its standard output; an error
	// when the tool is missing, fails or exceeds timeout.
	Run func(timeout time.Duration, name string, args ...string) ([]byte, error)
}

// System is the running process's Env.
func System(goos string) Env {
	return Env{GOOS: goos, Getenv: os.Getenv, Run: run}
}

// maxImage bounds what a tool may hand back: far above a screenshot.
const maxImage = 64 << 20

func run(timeout time.Duration, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var out limited
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return nil, err
	}
	if out.over {
		return nil, errors.New(name + ": the clipboard's content is over 64 MiB")
	}
	return out.Bytes(), nil
}

type limited struct {
	bytes.Buffer
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	if l.Len()+len(p) > maxImage {
		l.over = true
		return 0, errors.New("too large")
	}
	return l.Buffer.Write(p)
}

// Timeouts, as the established harness has them: listing the types is
// quick; PowerShell starts slowly.
const (
	listTimeout       = time.Second
	readTimeout       = 5 * time.Second
	powershellTimeout = 5 * time.Second
)

// preferred are the types models take, best first.
var preferred = []string{"image/png", "image/jpeg", "image/webp", "image/gif"}

// pick chooses the best image type of a tool's list of targets.
func pick(list []byte) string {
	var types []string
	for _, l := range strings.Split(string(list), "\n") {
		if t := strings.TrimSpace(l); t != "" {
			types = append(types, t)
		}
	}
	for _, p := range preferred {
		for _, t := range types {
			if base(t) == p {
				return t
			}
		}
	}
	return ""
}

func base(t string) string {
	b, _, _ := strings.Cut(t, ";")
	return strings.ToLower(strings.TrimSpace(b))
}

// Read returns the clipboard's image, or nil when it holds none (or no
// tool can tell).
func Read(e Env) *Image {
	switch e.GOOS {
	case "linux":
		wsl := e.Getenv("WSL_DISTRO_NAME") != "" || e.Getenv("WSL_INTEROP") != ""
		var img *Image
		tried := false
		if e.Getenv("WAYLAND_DISPLAY") != "" || e.Getenv("XDG_SESSION_TYPE") == "wayland" || wsl {
			img, tried = viaTool(e, "wl-paste", []string{"--list-types"}, func(t string) []string { return []string{"--type", t, "--no-newline"} })
		}
		if img == nil && !tried {
			img, _ = viaTool(e, "xclip", []string{"-selection", "clipboard", "-t", "TARGETS", "-o"}, func(t string) []string { return []string{"-selection", "clipboard", "-t", t, "-o"} })
		}
		if img == nil && wsl {
			img = viaPowerShell(e, "powershell.exe", true)
		}
		return img
	case "windows":
		return viaPowerShell(e, "powershell.exe", false)
	case "darwin":
		return viaOsascript(e)
	}
	return nil
}

// viaTool lists the clipboard's types with one call and reads the best
// image type with another. answered is true when the tool ran (so an
// empty Wayland clipboard does not fall through to a stale X11 one).
func viaTool(e Env, tool string, list []string, read func(string) []string) (img *Image, answered bool) {
	types, err := e.Run(listTimeout, tool, list...)
	if err != nil {
		return nil, false
	}
	t := pick(types)
	if t == "" {
		return nil, true
	}
	data, err := e.Run(readTimeout, tool, read(t)...)
	if err != nil || len(data) == 0 {
		return nil, true
	}
	return checked(data), true
}

// checked keeps data when its bytes are one of the types models take
// (whatever the tool called it).
func checked(data []byte) *Image {
	mime := http.DetectContentType(data)
	for _, p := range preferred {
		if mime == p {
			return &Image{Data: data, MimeType: mime}
		}
	}
	return nil
}

// viaFile has a tool write the image as a PNG to a temporary file.
func viaFile(e Env, timeout time.Duration, command func(path string) (string, []string), convert func(string) (string, error)) *Image {
	var b [8]byte
	rand.Read(b[:])
	path := filepath.Join(os.TempDir(), "pi-clip-"+hex.EncodeToString(b[:])+".png")
	defer os.Remove(path)
	target := path
	if convert != nil {
		t, err := convert(path)
		if err != nil {
			return nil
		}
		target = t
	}
	name, args := command(target)
	if _, err := e.Run(timeout, name, args...); err != nil {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 || len(data) > maxImage {
		return nil
	}
	return checked(data)
}

// viaPowerShell saves the Windows clipboard's image as PNG; under WSL the
// file's path is given to Windows in its own form (wslpath -w).
func viaPowerShell(e Env, exe string, wsl bool) *Image {
	var convert func(string) (string, error)
	if wsl {
		convert = func(p string) (string, error) {
			out, err := e.Run(listTimeout, "wslpath", "-w", p)
			if err != nil || len(bytes.TrimSpace(out)) == 0 {
				return "", errors.New("wslpath")
			}
			return strings.TrimSpace(string(out)), nil
		}
	}
	return viaFile(e, powershellTimeout, func(target string) (string, []string) {
		script := strings.Join([]string{
			"Add-Type -AssemblyName System.Windows.Forms",
			"Add-Type -AssemblyName System.Drawing",
			"$path = '" + strings.ReplaceAll(target, "'", "''") + "'",
			"$img = [System.Windows.Forms.Clipboard]::GetImage()",
			"if ($img) { $img.Save($path, [System.Drawing.Imaging.ImageFormat]::Png); Write-Output 'ok' } else { exit 1 }",
		}, "; ")
		return exe, []string{"-NoProfile", "-Command", script}
	}, convert)
}

// viaOsascript writes the macOS clipboard as PNG («class PNGf»); the
// script fails when the clipboard holds no image.
func viaOsascript(e Env) *Image {
	return viaFile(e, readTimeout, func(target string) (string, []string) {
		q := strings.ReplaceAll(strings.ReplaceAll(target, `\`, `\\`), `"`, `\"`)
		return "osascript", []string{
			"-e", `set f to open for access POSIX file "` + q + `" with write permission`,
			"-e", `try`,
			"-e", `write (the clipboard as «class PNGf») to f`,
			"-e", `on error m`,
			"-e", `close access f`,
			"-e", `error m`,
			"-e", `end try`,
			"-e", `close access f`,
		}
	}, nil)
}
