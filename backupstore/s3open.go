package backupstore

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	s3v2 "github.com/aws/aws-sdk-go-v2/service/s3"
	s3typesv2 "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/session"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
)

// openS3 opens the s3:// bucket at u as gocloud.dev/blob's s3blob opens it (the same query
// parameters, the same choice of AWS SDK by awssdk=v1|v2, the same credentials and custom
// CA bundle), but with hc as the SDK's HTTP client, or when hc is nil one bounded by t: the
// SDKs' defaults have no response or stall timeouts.
func openS3(ctx context.Context, u *url.URL, hc *http.Client, t Timeouts) (*blob.Bucket, error) {
	q := u.Query()
	if gcaws.UseV2(q) {
		return openS3V2(ctx, u, q, hc, t)
	}
	if hc == nil {
		hc = newHTTPClient(t)
	}
	opts := session.Options{SharedConfigState: session.SharedConfigEnable, Config: aws.Config{HTTPClient: hc}}
	if p, ok := q["profile"]; ok {
		opts.Profile = p[0]
	}
	q.Del("profile")
	q.Del("awssdk")
	sess, err := session.NewSessionWithOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("AWS session: %w", err)
	}
	rest := *u
	rest.RawQuery = q.Encode()
	return (&s3blob.URLOpener{ConfigProvider: sess}).OpenBucketURL(ctx, &rest)
}

// openS3V2 is openS3 with the AWS SDK v2. Without hc, the SDK's own client (which carries a
// custom CA bundle the configuration loaded) gets the bounds of t.
func openS3V2(ctx context.Context, u *url.URL, q url.Values, hc *http.Client, t Timeouts) (*blob.Bucket, error) {
	var opts s3blob.Options
	if v := q.Get("ssetype"); v != "" {
		found := false
		for _, t := range s3typesv2.ServerSideEncryptionAes256.Values() {
			if strings.EqualFold(string(t), v) {
				opts.EncryptionType, found = t, true
			}
		}
		if !found {
			return nil, fmt.Errorf("%q is not a valid value for %q", v, "ssetype")
		}
	}
	opts.KMSEncryptionID = q.Get("kmskeyid")
	q.Del("ssetype")
	q.Del("kmskeyid")
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, err
	}
	switch bc, ok := cfg.HTTPClient.(*awshttp.BuildableClient); {
	case hc != nil:
		cfg.HTTPClient = hc
	case ok:
		cfg.HTTPClient = bc.WithTransportOptions(func(tr *http.Transport) { boundTransport(tr, t) })
	default:
		cfg.HTTPClient = newHTTPClient(t)
	}
	return s3blob.OpenBucketV2(ctx, s3v2.NewFromConfig(cfg), u.Host, &opts)
}
