package experimental

import (
	"context"

	"github.com/tetratelabs/wazero/internal/expctxkeys"
)

// WithModuleSHA256 hands Runtime.CompileModule the SHA-256 of the binary
// it is given, computed by the caller, so that the module's ID (the key of
// the compilation cache) is derived from it instead of hashing the binary
// again (PI-PATCH).
//
// The caller vouches for the sum: it must be sha256.Sum256 of exactly the
// bytes passed to CompileModule with this context. A wrong sum makes the
// compilation cache serve the native code of another module.
func WithModuleSHA256(ctx context.Context, sum [32]byte) context.Context {
	return context.WithValue(ctx, expctxkeys.ModuleSHA256Key{}, sum)
}
