# Says hello.
param(
    [string]$Name = "world"
)

function Get-Greeting {
    param([string[]]$Names)
    if ($Names.Count -eq 0) {
        return "hello, $Name"
    }
    $Names | ForEach-Object { "hello, $_" }
}

$greeter = @{ Name = $Name; Count = 0 }
$greeter.Count += 1
foreach ($n in @("a", "b")) {
    Write-Output (Get-Greeting -Names $n)
}
