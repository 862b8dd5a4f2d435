param location string =
resource storage 'Microsoft.Storage/storageAccounts@2023-01-01' = {
  name: 
