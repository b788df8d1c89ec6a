package resources

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSuppressContextsSetting(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(p, []byte(`{"suppressContexts": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ds := loadGlobalSettings(p, dir)
	if !s.SuppressContexts || len(ds) != 0 {
		t.Fatalf("%+v %v", s, ds)
	}
	if !mergeSettings(s, Settings{}).SuppressContexts || !mergeSettings(Settings{}, s).SuppressContexts {
		t.Fatal("either layer must be able to suppress")
	}
	os.WriteFile(p, []byte(`{"suppressContexts": "yes"}`), 0o644)
	if _, ds := loadGlobalSettings(p, dir); len(ds) != 1 {
		t.Fatalf("want a warning, got %v", ds)
	}
}
