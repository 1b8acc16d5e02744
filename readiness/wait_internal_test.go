package readiness

import (
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The NotFound the waiter makes up names the resource, as the API server's own would.
func TestNotFoundNamesTheResource(t *testing.T) {
	tests := []struct {
		ref  ObjectRef
		want string
	}{
		{ObjectRef{GroupKind: schema.GroupKind{Group: "apps", Kind: "Deployment"}, Namespace: "shop", Name: "web"}, `deployments.apps "web" not found`},
		{ObjectRef{GroupKind: schema.GroupKind{Kind: "Service"}, Namespace: "shop", Name: "front"}, `services "front" not found`},
		{ObjectRef{GroupKind: schema.GroupKind{Group: "networking.k8s.io", Kind: "Ingress"}, Name: "in"}, `ingresses.networking.k8s.io "in" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			err := notFound(tt.ref)
			require.True(t, apierrors.IsNotFound(err))
			require.EqualError(t, err, tt.want)
		})
	}
}
