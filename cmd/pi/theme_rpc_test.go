package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/theme"
)

// TestRPCExportTakesTheTheme: export_html colours the page with the theme
// setting's theme (its export colours), as the established harness does;
// the system theme leaves the page its own colours.
func TestRPCExportTakesTheTheme(t *testing.T) {
	c := newCLI(t)
	models := `{"providers":{"mock":{"baseUrl":"http://127.0.0.1:1/v1","api":"openai-completions","apiKey":"k","models":[{"id":"m"}]}}}`
	writeFiles(t, c.agentDir, map[string]string{"models.json": models, "settings.json": `{"theme": "dark"}`})
	rc := startRPC(t, c, "--no-session")
	dark, _ := theme.Builtin("dark")
	page := dark.Palette("dark").PageBg
	out := filepath.Join(t.TempDir(), "dark.html")
	rc.send(`{"id":"e","type":"export_html","outputPath":"` + out + `"}`)
	rc.response("e")
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "body{background:"+page) {
		t.Errorf("the page is not in the dark theme's colours (%s): %v", page, err)
	}
	rc.in.Close()

	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{}`})
	rc = startRPC(t, c, "--no-session")
	out = filepath.Join(t.TempDir(), "system.html")
	rc.send(`{"id":"e","type":"export_html","outputPath":"` + out + `"}`)
	rc.response("e")
	if b, err := os.ReadFile(out); err != nil || strings.Contains(string(b), ":root{color-scheme") {
		t.Errorf("the system theme's page should keep its own colours: %v", err)
	}
	rc.in.Close()
}
