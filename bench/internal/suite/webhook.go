package suite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	crconversion "sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	"github.com/backupkit/backupkit/bench/internal/measure"
	"github.com/backupkit/backupkit/bench/internal/widget/bkwidget"
	"github.com/backupkit/backupkit/bench/internal/widget/crwidget"
	"github.com/backupkit/backupkit/convert"
)

// Handler returns tool's conversion webhook for Widget (Backupkit: convert.NewWebhookHandler
// over a registry holding the typed Widget; BackupkitUnstructured: the same over Widget
// registered unstructured (bkwidget.UnstructuredRegistry); Controller: controller-runtime's
// conversion.NewWebhookHandler over a scheme holding both versions, converting through
// the hub).
func Handler(tool string) (http.Handler, error) {
	switch tool {
	case Backupkit:
		r, err := bkwidget.Registry()
		if err != nil {
			return nil, err
		}
		return convert.NewWebhookHandler(r), nil
	case BackupkitUnstructured:
		r, err := bkwidget.UnstructuredRegistry()
		if err != nil {
			return nil, err
		}
		return convert.NewWebhookHandler(r), nil
	case Controller:
		return crconversion.NewWebhookHandler(crwidget.Scheme(), crconversion.NewRegistry()), nil
	}
	return nil, fmt.Errorf("unknown webhook tool %q", tool)
}

// Serve posts body to h once and returns the response body, or an error naming the
// status code, or the failure, of a review that did not succeed.
func Serve(h http.Handler, body []byte) ([]byte, error) {
	w := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		return nil, fmt.Errorf("webhook: status %d: %s", w.Code, w.Body.String())
	}
	// Cheaper than decoding the response, which would weigh on both tools alike: both encode
	// the result as metav1.Status, and Widget objects have no "status":"..." string field.
	if out := w.Body.Bytes(); !bytes.Contains(out, []byte(`"status":"Success"`)) || bytes.Contains(out, []byte(`"status":"Failure"`)) {
		return nil, fmt.Errorf("webhook: not a success: %.300s", out)
	}
	return w.Body.Bytes(), nil
}

// Webhook posts the review body to tool's handler reviews times. Items is reviews; Check
// digests the converted objects' apiVersion, kind, name, spec and status, which both
// tools must produce alike.
func Webhook(tool string, body []byte, reviews int) (measure.Run, error) {
	h, err := Handler(tool)
	if err != nil {
		return measure.Run{}, err
	}
	out, err := Serve(h, body) // warm up, and what Check digests
	if err != nil {
		return measure.Run{}, fmt.Errorf("%s: %w", tool, err)
	}
	check, err := digestConverted(out)
	if err != nil {
		return measure.Run{}, fmt.Errorf("%s: %w", tool, err)
	}
	run, err := measure.Do(func() error {
		for range reviews {
			if _, err := Serve(h, body); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return run, fmt.Errorf("%s: %w", tool, err)
	}
	run.Items, run.Check = reviews, check
	return run, nil
}

// digestConverted hashes what matters of the converted objects of a review response.
func digestConverted(resp []byte) (string, error) {
	var r struct {
		Response struct {
			ConvertedObjects []struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Metadata   struct {
					Name, Namespace string
					UID             string `json:"uid"`
				} `json:"metadata"`
				Spec   map[string]any `json:"spec"`
				Status map[string]any `json:"status"`
			} `json:"convertedObjects"`
		} `json:"response"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		return "", err
	}
	b, err := json.Marshal(r.Response.ConvertedObjects) // maps marshal with sorted keys
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return fmt.Sprintf("%d objects %s", len(r.Response.ConvertedObjects), hex.EncodeToString(sum[:8])), nil
}
