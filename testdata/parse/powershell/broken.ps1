function Get-Greeting {
    param([string]$Name
    if ($Name -eq {
        return "hello"
