package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/internal/testcluster"
)

var env testcluster.Env

func TestMain(m *testing.M) { os.Exit(env.Main(m, nil)) }

// The CRD --print-crd prints is one a real API server accepts as it is, and keeps the
// webhook the registry filled in.
func TestLivePrintedCRDIsAccepted(t *testing.T) {
	c := env.Cluster(t)
	_, caPEM, err := selfSigned([]string{"127.0.0.1"}, time.Now())
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, writeCRD(&buf, "https://127.0.0.1:9443"+Path, caPEM))
	crd := &unstructured.Unstructured{}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &crd.Object))

	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	created, err := crds.Create(t.Context(), crd, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = crds.Delete(context.Background(), created.GetName(), metav1.DeleteOptions{}) })
	strategy, _, _ := unstructured.NestedString(created.Object, "spec", "conversion", "strategy")
	require.Equal(t, "Webhook", strategy)
	url, _, _ := unstructured.NestedString(created.Object, "spec", "conversion", "webhook", "clientConfig", "url")
	require.Equal(t, "https://127.0.0.1:9443"+Path, url)
}
