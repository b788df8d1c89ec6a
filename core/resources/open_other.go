//go:build !unix

package resources

const openNonblock = 0
