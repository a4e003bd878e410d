# Calling the SOR bulk endpoint from PowerShell 7 with Invoke-RestMethod (NOT run in CI: PowerShell is not
# installed there; the Python, Java and curl examples beside this file are run by test/files/clients.test.ts).
#
#     pwsh client.ps1 -Base http://localhost:8080 -In students.csv -Out results.csv -Charset windows-1252 -Delimiter semicolon
param(
  [string]$Base = 'http://localhost:8080',
  [string]$In = 'students.csv',
  [string]$Out = 'results.csv',
  [string]$Charset = 'utf-8',
  [string]$Delimiter = 'comma'
)
$ErrorActionPreference = 'Stop'

# The file is sent as it is on disk (its charset declared); Invoke-RestMethod sends the whole body first, which
# the service handles (it reads the whole upload before it answers).
try {
  # -OutFile keeps the answer's bytes exactly (UTF-8 CSV).
  Invoke-RestMethod -Method Post -Uri "$Base/v1/calculate/bulk?delimiter=$Delimiter" `
    -ContentType "text/csv; charset=$Charset" -Headers @{ 'Accept' = 'text/csv' } -InFile $In -OutFile $Out
} catch {
  # The error envelope: {code, message, field_errors}
  Write-Error ($_.ErrorDetails.Message)
  exit 1
}

# Async job: submit, poll, download.
$job = Invoke-RestMethod -Method Post -Uri "$Base/v1/jobs?delimiter=$Delimiter" -ContentType "text/csv; charset=$Charset" `
  -Headers @{ 'Idempotency-Key' = "example-$([guid]::NewGuid())" } -InFile $In
do {
  Start-Sleep -Milliseconds 500
  $status = Invoke-RestMethod -Uri "$Base$($job.status_url)"
} while ($status.status -in @('queued', 'running'))
if ($status.status -eq 'failed') { Write-Error $status.error.message; exit 1 }
Invoke-RestMethod -Uri "$Base$($job.result_url)" -OutFile "$Out.job"
