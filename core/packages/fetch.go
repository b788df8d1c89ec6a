package packages

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Fetched is a source made local.
type Fetched struct {
	// Dir holds extension.yaml and the module.
	Dir string
	// Commit is a git source's checked-out commit; Version an npm
	// package's version as the registry resolved it.
	Commit, Version string
}

// Limits of an npm tarball.
const (
	maxTarball  = 64 << 20
	maxUnpacked = 256 << 20
	maxEntries  = 10000
)

// Fetch makes src local under work (an empty directory the caller
// removes). Local sources are used where they are.
func Fetch(ctx context.Context, src Source, work string) (Fetched, error) {
	switch src.Kind {
	case Local:
		fi, err := os.Stat(src.Path)
		if err != nil {
			return Fetched{}, err
		}
		if !fi.IsDir() {
			return Fetched{}, fmt.Errorf("%s is not a directory", src.Path)
		}
		return Fetched{Dir: src.Path}, nil
	case Git:
		return fetchGit(ctx, src, work)
	case Npm:
		return fetchNpm(ctx, src, work)
	}
	return Fetched{}, fmt.Errorf("unknown source kind %q", src.Kind)
}

func run(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	// No prompts for credentials on a terminal pi may be drawing on.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return out, fmt.Errorf("%s %s: %v: %s", name, args[0], err, msg)
	}
	return out, nil
}

func fetchGit(ctx context.Context, src Source, work string) (Fetched, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return Fetched{}, errors.New("git is not installed; it is needed for git: sources")
	}
	repo := filepath.Join(work, "repo")
	if _, err := run(ctx, work, "git", "clone", "--quiet", "--no-checkout", "--", src.URL, repo); err != nil {
		return Fetched{}, err
	}
	ref := src.Ref
	if ref == "" {
		ref = "HEAD"
	}
	if _, err := run(ctx, repo, "git", "checkout", "--quiet", "--detach", ref, "--"); err != nil {
		return Fetched{}, fmt.Errorf("%s has no ref %q: %w", src.URL, src.Ref, err)
	}
	out, err := run(ctx, repo, "git", "rev-parse", "HEAD")
	if err != nil {
		return Fetched{}, err
	}
	return Fetched{Dir: repo, Commit: strings.TrimSpace(string(out))}, nil
}

func fetchNpm(ctx context.Context, src Source, work string) (Fetched, error) {
	if _, err := exec.LookPath("npm"); err != nil {
		return Fetched{}, errors.New("npm is not installed; it is needed for npm: sources")
	}
	spec := src.Name
	if src.Version != "" {
		spec += "@" + src.Version
	}
	// npm pack of a registry package downloads its tarball and runs no
	// package scripts.
	out, err := run(ctx, work, "npm", "pack", spec, "--json", "--ignore-scripts", "--pack-destination", work)
	if err != nil {
		return Fetched{}, err
	}
	var packed []struct {
		Filename, Version string
	}
	if err := json.Unmarshal(out, &packed); err != nil || len(packed) != 1 {
		return Fetched{}, fmt.Errorf("npm pack %s: unexpected answer %.200q", spec, out)
	}
	tgz := filepath.Join(work, filepath.Base(packed[0].Filename))
	dest := filepath.Join(work, "npm")
	if err := Unpack(tgz, dest); err != nil {
		return Fetched{}, fmt.Errorf("%s: %w", packed[0].Filename, err)
	}
	return Fetched{Dir: filepath.Join(dest, "package"), Version: packed[0].Version}, nil
}

// Unpack extracts an npm tarball into dest: regular files and directories
// only, every name inside dest, bounded in size and count.
func Unpack(tgz, dest string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() > maxTarball {
		return fmt.Errorf("the tarball is larger than %d MiB", maxTarball>>20)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("not a gzip tarball: %w", err)
	}
	tr := tar.NewReader(zr)
	var total int64
	for n := 0; ; n++ {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("bad tarball: %w", err)
		}
		if n >= maxEntries {
			return fmt.Errorf("more than %d entries", maxEntries)
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if name == "." || path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") || strings.Contains(name, "\\") {
			return fmt.Errorf("entry %q is outside the package", h.Name)
		}
		target := filepath.Join(dest, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			total += h.Size
			if total > maxUnpacked {
				return fmt.Errorf("unpacks to more than %d MiB", maxUnpacked>>20)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			w, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(w, io.LimitReader(tr, h.Size))
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			// Links, devices and the rest are not part of an extension.
		}
	}
}
