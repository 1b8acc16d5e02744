package archive

// ReadAheadBytes is the most decompressed data a walk holds ahead of the entry it is at.
const ReadAheadBytes = readAheadChunks * readAheadMaxChunk

// RequireGoroutinesBackTo waits a little for the goroutine count to come back to n, then fails
// with every goroutine's stack.
var RequireGoroutinesBackTo = requireGoroutinesBackTo

// ResolveLimits returns l with its zero fields set as Limits documents.
func ResolveLimits(l Limits) (Limits, error) { return l.resolve() }
