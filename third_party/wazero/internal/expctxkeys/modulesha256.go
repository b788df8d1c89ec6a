package expctxkeys

// ModuleSHA256Key is a context.Context Value key (PI-PATCH). Its value is
// a [32]byte: the SHA-256 of the binary given to Runtime.CompileModule,
// which the caller has already computed.
type ModuleSHA256Key struct{}
