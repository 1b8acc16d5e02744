package archive

// ReadAheadBytes is the most decompressed data a walk holds ahead of the entry it is at.
const ReadAheadBytes = readAheadChunks * readAheadMaxChunk
