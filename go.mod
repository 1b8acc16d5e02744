module github.com/backupkit/backupkit

go 1.26.0

// Floors, not the newest: each direct requirement is the lowest version this module builds
// and passes its unit tests with, so that `go get` raises none of a fork's pins (Velero
// v1.18.3: k8s.io v0.33.12, controller-runtime v0.21.0). The indirect ones below follow from
// these by `go mod tidy`. `make unit-newest` runs the tests with k8s.io/api, apimachinery,
// client-go and utils at their newest releases; README.md, "For forks of Velero", says more.
require (
	// backupstore talks to S3 through the AWS SDKs gocloud.dev's s3blob uses, to give them
	// an HTTP client with timeouts and to abort a multipart upload on a context of its own:
	// already required at these versions by gocloud.dev v0.38.0 (no pin raised).
	github.com/aws/aws-sdk-go v1.51.30
	github.com/aws/aws-sdk-go-v2 v1.26.1
	github.com/aws/aws-sdk-go-v2/feature/s3/manager v1.16.15
	github.com/aws/aws-sdk-go-v2/service/s3 v1.53.1
	github.com/aws/smithy-go v1.20.2
	// restore's resource modifiers apply JSON Patch and JSON Merge Patch with the library
	// and version Velero v1.18.3 pins (v4 differs: copy from a missing member writes null,
	// a test against null fails on a missing member). It requires go-flags v1.6.1 (for its
	// command only) and golang.org/x/sys v0.21.0, below ours.
	github.com/evanphx/json-patch/v5 v5.9.11
	// convert's numberAsInt64 falls back with errors.ErrUnsupported from an
	// UnmarshalFromFunc function and calls jsontext.Token's Int and Float for their errors:
	// versions before February 2026 (Velero v1.18.3's module graph holds one from July 2025)
	// honour only SkipFunc, which v1.27 removed. v1.27.0 is the oldest release with both.
	// manifest.Read decodes manifest.json with it too (DefaultOptionsV1: encoding/json's
	// meaning, faster: manifest's BenchmarkRead, figures in bench/NOTES.md).
	github.com/go-json-experiment/json v1.27.0
	// restore's resource modifier rules match groupResource and namespaces with the glob
	// library Velero v1.18.3 uses, at the version it pins: its meaning, by construction
	// (no dependencies of its own).
	github.com/gobwas/glob v0.2.3
	// v1.15.9 (and v1.10.3, also tried) read and write backups, but their gzip output at
	// DefaultCompression differs, so the byte-for-byte check of the checked-in sample
	// backup (examples/internal/sample) fails.
	github.com/klauspost/compress v1.15.10
	// As low as it goes: k8s.io/apimachinery v0.33.0 requires v1.10.0.
	github.com/stretchr/testify v1.10.0
	// backupstore's buckets (blob, s3blob, fileblob; memblob in tests). v0.38.0 is the
	// oldest release the module proxy serves; none of its requirements is above Velero
	// v1.18.3's pins (later releases from v0.41.0 raise fsnotify v1.7.0). It is not low for
	// older forks: Velero v1.18.1 pins aws-sdk-go-v2/config v1.26.3, credentials v1.16.14,
	// feature/s3/manager v1.15.11, sts v1.26.7 (and sso, ssooidc, imds, ini), which s3blob
	// raises (to v1.27.11, v1.17.11, v1.16.15, v1.28.6, ...) with every gocloud.dev release.
	gocloud.dev v0.38.0
	// Velero v1.18.3's line (it pins v0.33.12); v0.33.0 is its oldest patch.
	k8s.io/api v0.33.0
	k8s.io/apimachinery v0.33.0
	k8s.io/client-go v0.33.0
	// As low as it goes: k8s.io/apimachinery and client-go v0.33.0 require it.
	k8s.io/utils v0.0.0-20241104100929-3ea5e8cea738
	// Used by convert/converttest too, not only by tests. v0.5.3 and older lack rapid.Map
	// (v0.5.0 to v0.5.3 name it Transform, v0.4 has no generics); v0.5.4 has the code of
	// v0.5.5 (which changed only documentation) but the module proxy here does not serve it.
	pgregory.net/rapid v0.5.5
	// restore/hooks reads a hooks spec with the API server's JSON rules (case-sensitive
	// field names, unknown fields refused): already required at this version by
	// k8s.io/apimachinery v0.33.0.
	sigs.k8s.io/json v0.0.0-20241010143419-9aa6b5e7a4b3
	// restore's resource modifier rules are YAML or JSON, read as Velero reads them:
	// already required at this version by k8s.io/apimachinery v0.33.0.
	sigs.k8s.io/yaml v1.4.0
)

require (
	github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream v1.6.2 // indirect
	github.com/aws/aws-sdk-go-v2/config v1.27.11 // indirect
	github.com/aws/aws-sdk-go-v2/credentials v1.17.11 // indirect
	github.com/aws/aws-sdk-go-v2/feature/ec2/imds v1.16.1 // indirect
	github.com/aws/aws-sdk-go-v2/internal/configsources v1.3.5 // indirect
	github.com/aws/aws-sdk-go-v2/internal/endpoints/v2 v2.6.5 // indirect
	github.com/aws/aws-sdk-go-v2/internal/ini v1.8.0 // indirect
	github.com/aws/aws-sdk-go-v2/internal/v4a v1.3.5 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/accept-encoding v1.11.2 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/checksum v1.3.7 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/presigned-url v1.11.7 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/s3shared v1.17.5 // indirect
	github.com/aws/aws-sdk-go-v2/service/sso v1.20.5 // indirect
	github.com/aws/aws-sdk-go-v2/service/ssooidc v1.23.4 // indirect
	github.com/aws/aws-sdk-go-v2/service/sts v1.28.6 // indirect
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/emicklei/go-restful/v3 v3.11.0 // indirect
	github.com/fxamacker/cbor/v2 v2.7.0 // indirect
	github.com/go-logr/logr v1.4.2 // indirect
	github.com/go-openapi/jsonpointer v0.21.0 // indirect
	github.com/go-openapi/jsonreference v0.20.2 // indirect
	github.com/go-openapi/swag v0.23.0 // indirect
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/golang/groupcache v0.0.0-20210331224755-41bb18bfe9da // indirect
	github.com/google/gnostic-models v0.6.9 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/google/wire v0.6.0 // indirect
	github.com/googleapis/gax-go/v2 v2.12.3 // indirect
	github.com/gorilla/websocket v1.5.4-0.20250319132907-e064f32e3674 // indirect
	github.com/jmespath/go-jmespath v0.4.0 // indirect
	github.com/josharian/intern v1.0.0 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/mailru/easyjson v0.7.7 // indirect
	github.com/moby/spdystream v0.5.0 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.2 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/mxk/go-flowrate v0.0.0-20140419014527-cca7078d478f // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/spf13/pflag v1.0.5 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	go.opencensus.io v0.24.0 // indirect
	golang.org/x/net v0.38.0 // indirect
	golang.org/x/oauth2 v0.27.0 // indirect
	golang.org/x/sys v0.31.0 // indirect
	golang.org/x/term v0.30.0 // indirect
	golang.org/x/text v0.23.0 // indirect
	golang.org/x/time v0.9.0 // indirect
	golang.org/x/xerrors v0.0.0-20231012003039-104605ab7028 // indirect
	google.golang.org/api v0.176.1 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20240415180920-8c6c420018be // indirect
	google.golang.org/grpc v1.63.2 // indirect
	google.golang.org/protobuf v1.36.5 // indirect
	gopkg.in/evanphx/json-patch.v4 v4.12.0 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
	k8s.io/klog/v2 v2.130.1 // indirect
	k8s.io/kube-openapi v0.0.0-20250318190949-c8a335a9a2ff // indirect
	sigs.k8s.io/randfill v1.0.0 // indirect
	sigs.k8s.io/structured-merge-diff/v4 v4.6.0 // indirect
)
