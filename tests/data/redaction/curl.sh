#!/bin/sh
# reproduce the 401 from the staging API
curl -sS -X POST https://api.staging.example.com/v1/jobs \
  -H 'Authorization: Bearer TXxFAKE8TTx4XUMGmTtfc6y~-xI25MTL3xzfMg5l' \
  -H 'Content-Type: application/json' \
  -d '{"name": "nightly"}'

curl https://api.anthropic.com/v1/messages \
  -H "x-api-key: sk-ant-api03-MG4FAKEhEbuUVDPDR-m0k5iqkwUONAIifEcLav_q5ZvQmLL8ZrF8w50SR2Qugs4lIFVRdxtDyKUOtfZUTqr8aFvnKbnHFAA" -H "anthropic-version: 2023-06-01"

curl -H "Authorization: Basic ZGVwbG95OkZha2UtUGFzc3cwcmQtN1F6IQ==" https://ci.internal/api/json
curl -H "Authorization: token gho_CslFAKElZq3ZycZOkN8gaW18vjsgJ0Wu8FxT" https://api.github.com/user
curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmYWtlLXVzZXItNDIiLCJuYW1lIjoiRmFrZSBVc2VyIiwiaWF0IjoxNzE4MDAwMDAwLCJleHAiOjE3MTgwMDM2MDB9.bDfj3u_ypO09RnKw1zW9-ohP46PbmT1TOkzfR1wKbPX" https://auth.internal/introspect
curl -X POST -d '{"text":"deployed"}' https://hooks.slack.com/services/TH6DFAKE29O/B3VJFAKEMQZ/6mYFAKEjWc7izH9DsTNAvead
curl "https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key=AIzaWV1FAKEmKaUyvBPs0jSO2Jkf08MMF1ulMMC"
