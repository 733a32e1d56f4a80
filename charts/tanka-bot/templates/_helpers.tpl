{{/* Names, labels and the checks that must stop a bad install before anything is created. */}}

{{- define "tanka-bot.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tanka-bot.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "tanka-bot.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tanka-bot.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "tanka-bot.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "tanka-bot.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "tanka-bot.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "tanka-bot.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "tanka-bot.redisName" -}}
{{- printf "%s-redis" (include "tanka-bot.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Whether REDIS_URL is set, and from which Secret/key. */}}
{{- define "tanka-bot.hasRedis" -}}
{{- if or .Values.redis.url .Values.redis.existingSecret .Values.redis.bundled.enabled -}}true{{- end -}}
{{- end -}}

{{- define "tanka-bot.redisSecretName" -}}
{{- if .Values.redis.existingSecret -}}
{{- .Values.redis.existingSecret -}}
{{- else -}}
{{- include "tanka-bot.redisName" . -}}
{{- end -}}
{{- end -}}

{{- define "tanka-bot.redisSecretKey" -}}
{{- if .Values.redis.existingSecret -}}
{{- .Values.redis.existingSecretKey -}}
{{- else -}}
REDIS_URL
{{- end -}}
{{- end -}}

{{- define "tanka-bot.turnTimeout" -}}
{{- $t := index .Values.config "TANKA_BOT_TURN_TIMEOUT" | default "600" -}}
{{- if not (regexMatch "^[0-9]+(\\.[0-9]+)?$" (toString $t)) -}}
{{- fail (printf "config.TANKA_BOT_TURN_TIMEOUT must be a number of seconds (got %q)" (toString $t)) -}}
{{- end -}}
{{- toString $t | float64 | ceil | int -}}
{{- end -}}

{{- define "tanka-bot.terminationGracePeriodSeconds" -}}
{{- $turn := include "tanka-bot.turnTimeout" . | int -}}
{{- if kindIs "invalid" .Values.terminationGracePeriodSeconds -}}
{{- add $turn .Values.terminationGraceMarginSeconds -}}
{{- else -}}
{{- $grace := .Values.terminationGracePeriodSeconds | int -}}
{{- if le $grace $turn -}}
{{- fail (printf "terminationGracePeriodSeconds (%d) must be longer than TANKA_BOT_TURN_TIMEOUT (%d): pods would be killed in the middle of a turn" $grace $turn) -}}
{{- end -}}
{{- $grace -}}
{{- end -}}
{{- end -}}

{{/* The bot's secret settings: each may come from a file named by NAME_FILE. */}}
{{- define "tanka-bot.secretSettings" -}}
SLACK_BOT_TOKEN SLACK_SIGNING_SECRET SLACK_APP_TOKEN GITHUB_TOKEN GITHUB_APP_PRIVATE_KEY ANTHROPIC_API_KEY GEMINI_API_KEY GOOGLE_API_KEY OPENAI_API_KEY REDIS_URL GITHUB_WEBHOOK_SECRET TANKA_BOT_ALERTS_TOKEN TANKA_BOT_OIDC_CLIENT_SECRET TANKA_BOT_WEB_SECRET
{{- end -}}

{{/* Where secretsAsFiles mounts the token Secret's keys and Redis's URL. */}}
{{- define "tanka-bot.secretsDir" -}}/run/secrets/tanka-bot{{- end -}}

{{/* Every refusal in one place, included by the Deployment so it runs on every render. */}}
{{- define "tanka-bot.validate" -}}
{{- $secretKeys := splitList " " (include "tanka-bot.secretSettings" .) -}}
{{- range $key, $_ := .Values.config -}}
{{- if has (upper $key) $secretKeys -}}
{{- fail (printf "config.%s is a secret: put it under `secrets` or in `existingSecret`, never in the ConfigMap" $key) -}}
{{- end -}}
{{- end -}}
{{- if hasKey .Values.secrets "REDIS_URL" -}}
{{- fail "secrets.REDIS_URL: set redis.url (or redis.existingSecret) instead, so the chart knows Redis is configured" -}}
{{- end -}}
{{- if has "REDIS_URL" .Values.existingSecretKeys -}}
{{- fail "existingSecretKeys: REDIS_URL: set redis.existingSecret (and redis.existingSecretKey) instead, so the chart knows Redis is configured" -}}
{{- end -}}
{{- if and (gt (int .Values.replicaCount) 1) (not (include "tanka-bot.hasRedis" .)) -}}
{{- fail (printf "replicaCount is %d but no Redis is configured: each pod would keep its own sessions, locks and dedupe keys. Set redis.url, redis.existingSecret or redis.bundled.enabled=true, or use replicaCount=1" (int .Values.replicaCount)) -}}
{{- end -}}
{{- if and .Values.redis.url .Values.redis.existingSecret -}}
{{- fail "set only one of redis.url and redis.existingSecret" -}}
{{- end -}}
{{- if and .Values.redis.bundled.enabled (or .Values.redis.url .Values.redis.existingSecret) -}}
{{- fail "redis.bundled.enabled deploys its own Redis: leave redis.url and redis.existingSecret empty" -}}
{{- end -}}
{{- if and .Values.persistence.enabled (gt (int .Values.replicaCount) 1) -}}
{{- fail "persistence.enabled gives all replicas one volume for their work dirs; with replicaCount > 1 keep persistence.enabled=false (an emptyDir per pod)" -}}
{{- end -}}
{{- end -}}

{{/* Missing tokens are warned about in NOTES.txt, not refused: `helm lint` and a first install
     with default values must work, and the bot itself stops with one message naming each
     missing variable. */}}
{{- define "tanka-bot.missingSecrets" -}}
{{- if not .Values.existingSecret -}}
{{- $missing := list -}}
{{- if not .Values.secrets.SLACK_BOT_TOKEN -}}{{- $missing = append $missing "SLACK_BOT_TOKEN" -}}{{- end -}}
{{- if and .Values.slack.socketMode (not .Values.secrets.SLACK_APP_TOKEN) -}}{{- $missing = append $missing "SLACK_APP_TOKEN" -}}{{- end -}}
{{- if and (not .Values.slack.socketMode) (not .Values.secrets.SLACK_SIGNING_SECRET) -}}{{- $missing = append $missing "SLACK_SIGNING_SECRET" -}}{{- end -}}
{{- join ", " $missing -}}
{{- end -}}
{{- end -}}

{{/* A name label of its own, so the bot's selector never matches the Redis pod. */}}
{{- define "tanka-bot.redisSelectorLabels" -}}
app.kubernetes.io/name: {{ include "tanka-bot.name" . }}-redis
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
