//go:build unix

package resources

import (
	"fmt"
	"os"
	"syscall"
)

// foreignWritable says why someone other than the user (or root) could
// have written the file or directory fi describes, or returns "": it is
// writable by every user, or owned by another user who is not root. This is
// git's safe-directory rule applied to context files.
func foreignWritable(fi os.FileInfo) string {
	if fi.Mode().Perm()&0o002 != 0 {
		return "writable by every user"
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 && int(st.Uid) != os.Getuid() {
		return fmt.Sprintf("owned by another user (uid %d)", st.Uid)
	}
	return ""
}
