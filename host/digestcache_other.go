//go:build !unix

package host

// identityOf never vouches for a file where there is no change time a user
// cannot set (Windows): every module is hashed on every run there, which is
// slower but never trusts a file rewritten in place.
func identityOf(string) (fileIdentity, bool) { return fileIdentity{}, false }
