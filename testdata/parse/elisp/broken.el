(defun greeter-greet (name
  (format "hello, %s" name)
