;;; greeter.el --- Says hello  -*- lexical-binding: t -*-

(defvar greeter-count 0
  "How many greetings were given.")

(defun greeter-greet (name)
  "Return a greeting for NAME."
  (setq greeter-count (1+ greeter-count))
  (if (string-empty-p name)
      "hello, world"
    (format "hello, %s" name)))

(defun greeter-greet-all (names)
  (mapcar #'greeter-greet names))

(message "%S" (greeter-greet-all '("a" "b")))

(provide 'greeter)
