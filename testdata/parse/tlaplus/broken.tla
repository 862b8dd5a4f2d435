---- MODULE Counter ----
Init == /\ count = 
Next == Inc \/
====
