{ Says hello. }
program Greeter;

uses SysUtils;

var
  Count: Integer;

function Greet(const Name: string): string;
begin
  Inc(Count);
  if Name = '' then
    Result := 'hello, world'
  else
    Result := 'hello, ' + Name;
end;

var
  I: Integer;
begin
  Count := 0;
  for I := 1 to 3 do
    WriteLn(Greet(IntToStr(I)));
  WriteLn(Count);
end.
