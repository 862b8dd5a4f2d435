(defun greet (name
  (format nil "~a" name)
