package main

import (
	"encoding/json"
	"io"

	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/examples/externaljob"
)

// writeCRD writes the ExternalJob CustomResourceDefinition controller-gen generated from
// the kind's Go types (externaljob.CRD: a schema per version, the status subresource,
// printer columns, the hub stored), with conversions sent to the webhook at url, trusted
// through caPEM. The registry checks the CRD and fills in spec.conversion
// (convert.Registry.WithWebhookConversion), so the CRD and the webhook cannot disagree.
func writeCRD(w io.Writer, url string, caPEM []byte) error {
	reg, err := externaljob.Registry()
	if err != nil {
		return err
	}
	crd, err := externaljob.CRD()
	if err != nil {
		return err
	}
	out, err := reg.WithWebhookConversion(crd, convert.WebhookConversion{URL: url, CABundle: caPEM})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out.Object)
}
