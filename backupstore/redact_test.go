package backupstore_test

import (
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/internal/s3server"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"s3://bucket?endpoint=http://127.0.0.1:9000&region=us-east-1", "s3://bucket?endpoint=http://127.0.0.1:9000&region=us-east-1"},
		{"s3://user:pass@bucket/x", "s3://bucket/x"},
		{"s3://user@bucket/x", "s3://bucket/x"},
		{"azblob://c?sas_token=abc&x=1", "azblob://c?sas_token=REDACTED&x=1"},
		{"s3://b?secret_access_key=SECRET", "s3://b?secret_access_key=REDACTED"},
		{"s3://b?X-Amz-Credential=AK%2F1&X-Amz-Signature=ab&region=r", "s3://b?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED&region=r"},
		{"s3://b?SECRET=x&Password=y&AWSAccessKeyId=z", "s3://b?AWSAccessKeyId=REDACTED&Password=REDACTED&SECRET=REDACTED"},
		{"s3://b?endpoint=http%3A%2F%2Fu%3Ap%40127.0.0.1%3A1", "s3://b?endpoint=http%3A%2F%2F127.0.0.1%3A1"},
		{"s3://b?endpoint=http://u:p@127.0.0.1:1&region=r", "s3://b?endpoint=http%3A%2F%2F127.0.0.1%3A1&region=r"},
		{"file:///srv/backups", "file:///srv/backups"},
	} {
		require.Equal(t, tc.want, backupstore.Redact(tc.in), tc.in)
	}
	require.NotContains(t, backupstore.Redact("%zz://x:SECRET@y"), "SECRET")
}

// secretURL draws a URL of an S3 bucket on endpoint with a secret placed in it: in its user
// information (as the user or the password), in the value of a query parameter whose name
// suggests a credential, or in the user information of the endpoint parameter; the query's
// parameters in any order, each written with either escaping. valid says whether Open can
// accept it (s3blob refuses a query parameter it does not know).
func secretURL(t *rapid.T, endpoint, region string) (raw, secret string, valid bool) {
	secret = rapid.StringMatching(`[A-Za-z0-9/+=%&@:?#._~-]{12,40}`).Draw(t, "secret")
	type param struct{ k, v string }
	params := []param{{"endpoint", endpoint}, {"region", region}, {"s3ForcePathStyle", "true"}, {"disableSSL", "true"}}
	user := ""
	valid = true
	switch rapid.IntRange(0, 3).Draw(t, "where") {
	case 0:
		user = url.UserPassword(rapid.StringMatching(`[A-Z0-9]{4,20}`).Draw(t, "user"), secret).String() + "@"
	case 1:
		user = url.User(secret).String() + "@"
	case 2:
		name := rapid.SampledFrom([]string{"secret_access_key", "AWS_SECRET_ACCESS_KEY", "X-Amz-Security-Token", "sas_token",
			"password", "Passwd", "aws_session_token", "X-Amz-Signature", "X-Amz-Credential", "AWSAccessKeyId", "kmskeyid"}).Draw(t, "name")
		params = append(params, param{name, secret})
		valid = name == "kmskeyid"
	case 3:
		u, err := url.Parse(endpoint)
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword("user", secret)
		params[0].v = u.String()
	}
	order := rapid.Permutation(params).Draw(t, "order")
	var q []string
	for _, p := range order {
		if rapid.Bool().Draw(t, "path escaping") {
			q = append(q, url.PathEscape(p.k)+"="+strings.NewReplacer("&", "%26", "+", "%2B").Replace(url.PathEscape(p.v)))
		} else {
			q = append(q, url.QueryEscape(p.k)+"="+url.QueryEscape(p.v))
		}
	}
	return "s3://" + user + bucket + "?" + strings.Join(q, "&"), secret, valid
}

// requireNoSecret fails t when text holds secret in any form a URL or a driver may quote it.
func requireNoSecret(t require.TestingT, text, secret string) {
	quoted := strconv.Quote(secret)
	for _, f := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret), quoted[1 : len(quoted)-1]} {
		require.NotContains(t, text, f)
	}
}

// For random secrets placed anywhere in a URL, nothing the store shows (its URL, the
// errors of a store that opens and of one that does not, the names of its readers) holds
// them, whether the run succeeds or fails, against a real S3 server.
func TestS3PropertyNoSecretShown(t *testing.T) {
	srv := s3server.ForTest(t, bucket)
	srv.SetEnv(t)
	ctx := t.Context()
	runs := 0
	rapid.Check(t, func(t *rapid.T) {
		runs++
		endpoint := rapid.SampledFrom([]string{srv.Endpoint, "http://127.0.0.1:1"}).Draw(t, "endpoint") // the second refuses
		raw, secret, valid := secretURL(t, endpoint, s3server.Region)
		requireNoSecret(t, backupstore.Redact(raw), secret)
		s, err := backupstore.Open(ctx, raw, backupstore.WithTimeouts(faultTimeouts), backupstore.WithReadRetries(0))
		if err != nil {
			require.False(t, valid && endpoint == srv.Endpoint, "%v", err)
			require.ErrorContains(t, err, backupstore.Redact(raw))
			requireNoSecret(t, err.Error(), secret)
			return
		}
		defer s.Close()
		require.True(t, valid && endpoint == srv.Endpoint)
		requireNoSecret(t, s.URL(), secret)
		name := fmt.Sprintf("b%d", runs)
		w, err := s.NewBackupWriter(ctx, name)
		require.NoError(t, err)
		aw := writeBackup(t, w, 2)
		require.NoError(t, w.Commit(aw.WriteSibling))
		rc, err := s.Tarball(name)(ctx)
		require.NoError(t, err)
		requireNoSecret(t, rc.(interface{ Name() string }).Name(), secret)
		_, err = io.Copy(io.Discard, rc)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		_, err = s.NewBackupWriter(ctx, name)
		require.ErrorIs(t, err, backupstore.ErrExists)
		requireNoSecret(t, err.Error(), secret)
		_, _, err = s.Backup(ctx, "missing")
		require.ErrorIs(t, err, backupstore.ErrNotFound)
		requireNoSecret(t, err.Error(), secret)
	})
}

// The S3 driver's own error texts (an unknown query parameter, quoted in a URL it has
// re-encoded and re-sorted) hold no secret once the store has them.
func TestOpenErrorsHoldNoSecret(t *testing.T) {
	for _, raw := range []string{
		"s3://b?region=r&secret=Sekr1t%2Fvalue&endpoint=http://127.0.0.1:1",
		"s3://b?secret=Sekr1t/value&region=r&awssdk=v2",
		"s3://b?Token=Sekr1t%2Bvalue&region=r",
		"s3://b?endpoint=http%3A%2F%2Fuser%3ASekr1t%252Fvalue%40127.0.0.1%3A1&region=r&bogus=1",
		"s3://AKIA:Sekr1t%2Fvalue@b?region=r&bogus=1",
	} {
		t.Run(raw, func(t *testing.T) {
			t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
			_, err := backupstore.Open(t.Context(), raw, backupstore.WithTimeouts(faultTimeouts))
			require.Error(t, err)
			require.NotContains(t, err.Error(), "Sekr1t")
		})
	}
}

// Redact takes any text without panicking; what it shows holds no password of the URL's user
// information, and showing it again changes nothing.
func FuzzRedact(f *testing.F) {
	for _, seed := range []string{
		"s3://user:pass@bucket/x",
		"s3://b?secret_access_key=SECRET&region=r",
		"s3://b?endpoint=http%3A%2F%2Fu%3Ap%40127.0.0.1%3A1",
		"s3://b?endpoint=http://u:p@h&X-Amz-Signature=ab;c=d",
		"%zz://x:SECRET@y",
		"file:///srv/backups",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		shown := backupstore.Redact(raw)
		u, err := url.Parse(raw)
		if err != nil || shown == "<unparsable URL>" {
			require.Equal(t, "<unparsable URL>", shown)
			return
		}
		require.Equal(t, shown, backupstore.Redact(shown), "redacting twice")
		if p, ok := u.User.Password(); ok && len(p) >= 8 && !strings.Contains(raw[strings.Index(raw, "@")+1:], p) {
			require.NotContains(t, shown, p)
		}
	})
}
