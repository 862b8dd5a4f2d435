program Greeter;
begin
  WriteLn('hello';
  if then
end
