package backupstore

import (
	"context"
	"errors"
	"fmt"
	"sync"

	s3managerv2 "github.com/aws/aws-sdk-go-v2/feature/s3/manager"
	s3v2 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go/aws/awserr"
	"github.com/aws/aws-sdk-go/aws/request"
	"github.com/aws/aws-sdk-go/service/s3"
	"github.com/aws/aws-sdk-go/service/s3/s3manager"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"gocloud.dev/blob"
)

// multipart follows the S3 multipart upload an upload starts (the tarball's, when it is
// larger than one part), so that an upload that failed or was given up can be aborted on a
// context of its own: the upload's own abort is sent on the upload's context, which is
// already cancelled when the caller gave up, and is not sent at all when the process dies
// in the middle of it. For buckets of other drivers it does nothing.
type multipart struct {
	mu          sync.Mutex
	bucket, key string // as the upload's input names them
	id          string // the upload's ID, once CreateMultipartUpload has answered
	v1, v2      bool
}

// beforeWrite is a blob.WriterOptions.BeforeWrite that records the upload's bucket and key
// and hooks the uploader so that the multipart upload's ID is recorded when it starts.
func (m *multipart) beforeWrite(as func(any) bool) error {
	var in1 *s3manager.UploadInput
	var up1 *s3manager.Uploader
	if as(&in1) && as(&up1) && in1.Bucket != nil && in1.Key != nil {
		m.bucket, m.key, m.v1 = *in1.Bucket, *in1.Key, true
		up1.RequestOptions = append(up1.RequestOptions, func(r *request.Request) {
			r.Handlers.Complete.PushBack(func(r *request.Request) {
				if out, ok := r.Data.(*s3.CreateMultipartUploadOutput); ok && r.Error == nil && out.UploadId != nil {
					m.started(*out.UploadId)
				}
			})
		})
		return nil
	}
	var in2 *s3v2.PutObjectInput
	var up2 *s3managerv2.Uploader
	if as(&in2) && as(&up2) && in2.Bucket != nil && in2.Key != nil {
		m.bucket, m.key, m.v2 = *in2.Bucket, *in2.Key, true
		up2.ClientOptions = append(up2.ClientOptions, func(o *s3v2.Options) {
			o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
				return st.Initialize.Add(middleware.InitializeMiddlewareFunc("backupkitMultipartID",
					func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
						out, md, err := next.HandleInitialize(ctx, in)
						if res, ok := out.Result.(*s3v2.CreateMultipartUploadOutput); ok && err == nil && res.UploadId != nil {
							m.started(*res.UploadId)
						}
						return out, md, err
					}), middleware.After)
			})
		})
	}
	return nil
}

func (m *multipart) started(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.id = id
}

// abort aborts the multipart upload, if one was started, with bucket's S3 client, within
// ctx. An upload already aborted or completed (S3's NoSuchUpload) is not an error.
func (m *multipart) abort(ctx context.Context, bucket *blob.Bucket) error {
	m.mu.Lock()
	id := m.id
	m.mu.Unlock()
	if id == "" {
		return nil
	}
	var err error
	switch {
	case m.v1:
		var c *s3.S3
		if !bucket.As(&c) {
			return nil
		}
		_, err = c.AbortMultipartUploadWithContext(ctx, &s3.AbortMultipartUploadInput{Bucket: &m.bucket, Key: &m.key, UploadId: &id})
		var ae awserr.Error
		if errors.As(err, &ae) && ae.Code() == s3.ErrCodeNoSuchUpload {
			err = nil
		}
	case m.v2:
		var c *s3v2.Client
		if !bucket.As(&c) {
			return nil
		}
		_, err = c.AbortMultipartUpload(ctx, &s3v2.AbortMultipartUploadInput{Bucket: &m.bucket, Key: &m.key, UploadId: &id})
		var ae smithy.APIError
		if errors.As(err, &ae) && ae.ErrorCode() == "NoSuchUpload" {
			err = nil
		}
	}
	if err != nil {
		return fmt.Errorf("abort the multipart upload %s of %s: %w", id, m.key, err)
	}
	return nil
}
