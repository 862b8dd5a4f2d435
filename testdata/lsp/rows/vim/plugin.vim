function! s:Greet(name) abort
  return 'hello ' . a:name
endfunction

function! Hello() abort
  echo s:Greet('world')
endfunction

call Hello()
