//go:build !noui

package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"

	"github.com/atotto/clipboard"
	"github.com/piwasm/pi/core/imagefit"
	"github.com/piwasm/pi/core/keybind"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/settings"
	"github.com/piwasm/pi/internal/clipimage"
	"github.com/piwasm/pi/ui"
)

// uiKeys are the key bindings of a load: its keybindings.json over the
// defaults of this platform.
func uiKeys(cfg keybind.Config) *keybind.Bindings {
	return keybind.Resolve(keybind.Actions(ui.HostPlatform()), cfg)
}

// pasteClipboard reads the clipboard for ctrl+v: an image is scaled as an
// @file image is (images.autoResize) and saved to a temporary file, whose
// path the editor shows and the next message is sent with; without an
// image the clipboard's text is pasted.
func pasteClipboard(v *settings.Settings) (ui.Pasted, error) {
	if img := clipimage.Read(clipimage.System(goruntime.GOOS)); img != nil {
		data, mime := img.Data, img.MimeType
		if v == nil || v.Bool("images.autoResize") {
			out, outMime, _, _, resized, err := imagefit.Fit(data, mime)
			if err != nil {
				return ui.Pasted{}, fmt.Errorf("the clipboard's image: %w", err)
			}
			if resized {
				data, mime = out, outMime
			}
		}
		ext := map[string]string{"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}[mime]
		var b [16]byte
		rand.Read(b[:])
		path := filepath.Join(os.TempDir(), "pi-clipboard-"+hex.EncodeToString(b[:])+"."+ext)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return ui.Pasted{}, fmt.Errorf("saving the clipboard's image: %w", err)
		}
		return ui.Pasted{Image: &prompt.Block{Type: "image", MimeType: mime, Data: base64.StdEncoding.EncodeToString(data)}, Path: path}, nil
	}
	text, err := clipboard.ReadAll()
	if err != nil {
		return ui.Pasted{}, err
	}
	return ui.Pasted{Text: text}, nil
}
