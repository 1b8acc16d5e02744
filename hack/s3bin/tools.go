//go:build tools

// Package s3bin pins versitygw, the S3 server backupstore's live tests run against.
package s3bin

import _ "github.com/versity/versitygw/cmd/versitygw"
