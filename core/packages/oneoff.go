package packages

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// OneOff is a package fetched for one run (`pi -e npm:NAME`): not
// declared in any settings file, kept in a cache under the agent dir so
// the next run with the same source needs no network.
type OneOff struct {
	Dir string
	// Wasm: Dir is a WebAssembly extension package (extension.yaml);
	// otherwise Resources lists what the package of the established
	// format offers.
	Wasm      bool
	Resources Resources
}

// IsRemote reports whether spec names an npm or git source rather than a
// path.
func IsRemote(spec string) bool {
	for _, p := range []string{"npm:", "git:", "https://", "http://", "ssh://", "file://"} {
		if strings.HasPrefix(spec, p) {
			return true
		}
	}
	return false
}

// FetchOneOff makes a remote source ready for one run under
// agentDir/tmp/extensions (the established harness's place for them). A
// source fetched before is used as it is; with offline set, one that was
// not is an error rather than a fetch.
func FetchOneOff(ctx context.Context, src Source, agentDir string, npm []string, offline bool) (OneOff, error) {
	sum := sha256.Sum256([]byte(Identity(src) + "@" + src.Ref + src.Version))
	base := filepath.Join(agentDir, "tmp", "extensions", hex.EncodeToString(sum[:4]))
	dir, err := InstallDir(base, src)
	if err != nil {
		return OneOff{}, err
	}
	if _, err := os.Stat(dir); err != nil {
		if offline {
			return OneOff{}, fmt.Errorf("PI_OFFLINE is set, and %s has not been fetched before; unset PI_OFFLINE to fetch it", src.Spec)
		}
		if err := os.MkdirAll(base, 0o700); err != nil {
			return OneOff{}, err
		}
		work, err := os.MkdirTemp(base, "fetch-")
		if err != nil {
			return OneOff{}, err
		}
		defer os.RemoveAll(work)
		f, err := Fetch(ctx, src, work)
		if err != nil {
			return OneOff{}, err
		}
		if _, err := os.Stat(filepath.Join(f.Dir, "extension.yaml")); err == nil {
			if err := replaceDir(f.Dir, dir); err != nil {
				return OneOff{}, err
			}
		} else if _, err := Place(ctx, src, f, base, npm); err != nil {
			return OneOff{}, err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "extension.yaml")); err == nil {
		return OneOff{Dir: dir, Wasm: true}, nil
	}
	res, err := ReadResources(dir)
	if err != nil {
		return OneOff{}, err
	}
	return OneOff{Dir: dir, Resources: res}, nil
}
