package backup

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"strconv"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"k8s.io/client-go/rest"
)

// rawPage is a page of a list read by Run itself (a Cluster made by Connect): the JSON of
// each object as the server sent it, and the list's own fields.
type rawPage struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Continue           string `json:"continue"`
		RemainingItemCount *int64 `json:"remainingItemCount"`
	} `json:"metadata"`
	Items []jsontext.Value `json:"items"`
}

// listRaw sends one list request for resource of group at version (in namespace ns unless
// "") through rc, at most limit objects from the continue token cont, with the label
// selector sel, and reads the answer's items without decoding them. Errors are those of
// the dynamic client's List: an answer of the server as an apierrors.APIStatus, a body
// that does not parse as encoding/json's *json.SyntaxError.
func listRaw(ctx context.Context, rc rest.Interface, group, version, resource, ns string, limit int64, cont, sel string) (*rawPage, error) {
	req := rc.Get()
	if group == "" {
		req = req.AbsPath("/api", version)
	} else {
		req = req.AbsPath("/apis", group, version)
	}
	if ns != "" {
		req = req.Namespace(ns)
	}
	req = req.Resource(resource).Param("limit", strconv.FormatInt(limit, 10))
	if cont != "" {
		req = req.Param("continue", cont)
	}
	if sel != "" {
		req = req.Param("labelSelector", sel)
	}
	res := req.Do(ctx)
	if err := res.Error(); err != nil {
		return nil, err
	}
	var ct string
	res.ContentType(&ct)
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return nil, fmt.Errorf("backup: list %s: answer of content type %q, not application/json", resource, ct)
	}
	body, _ := res.Raw()
	return decodeRawPage(body)
}

// decodeRawPage reads a list's JSON: go-json-experiment's decoder with encoding/json's
// options (field names matched case-insensitively, the last of duplicate names taken),
// which copies each item once; when it fails, encoding/json's, so that a body that does not
// parse is the same error as the dynamic client's.
func decodeRawPage(body []byte) (*rawPage, error) {
	var p rawPage
	if err := jsonv2.Unmarshal(body, &p, jsonv1.DefaultOptionsV1()); err == nil {
		return &p, nil
	}
	p = rawPage{}
	var items struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(body, &items); err != nil {
		return nil, err
	}
	p.Items = make([]jsontext.Value, len(items.Items))
	for i, it := range items.Items {
		p.Items[i] = jsontext.Value(it)
	}
	return &p, nil
}

// item reads the i-th item of p (readItem), taking the list's apiVersion and kind, without
// its "List", when the item has neither (as the dynamic client does), and writes into buf
// the bytes Run stores for it: the item's JSON as the server sent it, with "apiVersion" and
// "kind" first when they were set. An item that is not a JSON object is an error.
func (p *rawPage) item(i int, buf *bytes.Buffer) (*item, error) {
	raw := p.Items[i]
	body := bytes.TrimLeft(raw, " \t\r\n")
	if len(body) == 0 || body[0] != '{' {
		return nil, fmt.Errorf("item %d of the list is not a JSON object", i)
	}
	it, err := readItem(raw)
	if err != nil {
		return nil, err
	}
	buf.Reset()
	if it.head.Kind != "" || it.head.APIVersion != "" {
		buf.Write(raw)
		return it, nil
	}
	kind := p.Kind
	if n := len(kind) - len("List"); n >= 0 && kind[n:] == "List" {
		kind = kind[:n]
	}
	it.head.Kind, it.head.APIVersion = kind, p.APIVersion
	b := buf.AvailableBuffer()
	b = append(b, `{"apiVersion":`...)
	b, _ = jsontext.AppendQuote(b, p.APIVersion) // only invalid UTF-8 fails, and is written as U+FFFD
	b = append(b, `,"kind":`...)
	b, _ = jsontext.AppendQuote(b, kind)
	rest := body[1:]
	if r := bytes.TrimLeft(rest, " \t\r\n"); len(r) > 0 && r[0] != '}' {
		b = append(b, ',')
	}
	b = append(b, rest...)
	buf.Write(b)
	return it, nil
}
