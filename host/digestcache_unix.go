//go:build unix

package host

import (
	"os"

	"golang.org/x/sys/unix"
)

// identityOf reads what identifies the current contents of the file at path.
// golang.org/x/sys/unix names the change time Ctim on every Unix, where
// syscall does not (Ctimespec on macOS and the BSDs).
func identityOf(path string) (fileIdentity, bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fileIdentity{}, false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fileIdentity{}, false
	}
	csec, cnsec := st.Ctim.Unix()
	return fileIdentity{
		Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: fi.Size(),
		MtimeNs: fi.ModTime().UnixNano(), CtimeNs: csec*1e9 + cnsec,
	}, true
}
