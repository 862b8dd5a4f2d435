---------------------------- MODULE Counter ----------------------------
EXTENDS Naturals, Sequences

CONSTANT Max
VARIABLES count, log

Init == /\ count = 0
        /\ log = <<>>

Inc == /\ count < Max
       /\ count' = count + 1
       /\ log' = Append(log, count)

Reset == /\ count = Max
         /\ count' = 0
         /\ UNCHANGED log

Next == Inc \/ Reset

Spec == Init /\ [][Next]_<<count, log>>

TypeOK == count \in 0..Max
=============================================================================
