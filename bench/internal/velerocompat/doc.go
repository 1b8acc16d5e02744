// Package velerocompat checks, in its tests, that what archive.Writer writes is read by
// Velero v1.18.3's own pkg/archive: extracted by its Extractor, listed by its Parser, its
// group versions parsed, every item found where Velero's restore looks for it, byte for
// byte; that a backup committed with backupstore.WithVeleroBackup is listed and read by
// Velero's own pkg/persistence (ListBackups, GetBackupMetadata, GetBackupContents and the
// lists its sync and restore read); and that what restore writes where it claims Velero's
// meaning (its labels) is what Velero's own code writes. It has no code of its own.
package velerocompat
