;;; Says hello.
(defpackage :greeter
  (:use :common-lisp)
  (:export #:greet))

(in-package :greeter)

(defvar *count* 0)

(defun greet (name &optional (greeting "hello"))
  "Return a greeting for NAME."
  (incf *count*)
  (format nil "~a, ~a" greeting name))

(defun greet-all (names)
  (loop for n in names
        collect (greet n)))

(print (greet-all '("a" "b")))
