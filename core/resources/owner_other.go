//go:build !unix

package resources

import "os"

// foreignWritable has no owner or mode bits to look at here (Windows ACLs
// are not checked).
func foreignWritable(os.FileInfo) string { return "" }
