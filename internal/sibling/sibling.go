package sibling

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Path is the program name in the directory of exe (pi-ui.exe on
// Windows), or an error saying why there is no program there to run.
func Path(exe, name string) (string, error) {
	if exe == "" {
		return "", fmt.Errorf("%s: pi's own executable is unknown", name)
	}
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	p := filepath.Join(filepath.Dir(exe), name)
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return p, err
	case !fi.Mode().IsRegular():
		return p, fmt.Errorf("%s is not a regular file", p)
	case runtime.GOOS != "windows" && fi.Mode()&0o111 == 0:
		// Windows has no execute bit; the extension decides.
		return p, fmt.Errorf("%s is not executable", p)
	}
	return p, nil
}
