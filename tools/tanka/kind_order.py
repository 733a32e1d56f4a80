"""The order Kubernetes kinds are written in: Helm's install order, and tk's sort order.

`helm template` (helmTemplate, tools.tanka.natives.helm_lib) writes a chart's objects in Helm's
releaseutil.InstallOrder; tk's pipeline (pkg/process/sort.go, tools.tanka.pipeline.process)
sorts by its own list, which is the same order without five kinds (reference/tanka.md, 3.9). One
list, so the two cannot drift apart by a typo; unknown kinds go after every known one in both.
"""

from __future__ import annotations

HELM_INSTALL_ORDER = (
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
)

# The kinds in Helm's order that tk's sort.go does not list: tk sorts them with the unknown kinds.
_NOT_IN_TK = frozenset(
    {
        "PriorityClass",
        "SecretList",
        "IngressClass",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    }
)
TK_KIND_ORDER = tuple(kind for kind in HELM_INSTALL_ORDER if kind not in _NOT_IN_TK)
