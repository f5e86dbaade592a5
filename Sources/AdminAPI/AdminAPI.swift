// AdminAPI: Twilio-shaped REST (/v1/Rooms...), webhooks, /metrics, /healthz.
// Filled by the control-plane issue.
