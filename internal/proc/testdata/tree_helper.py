"""Makes a detached mount tree of argv[1] as an unprivileged tether would:
in user and mount namespaces of its own (open_tree(OPEN_TREE_CLONE) needs
CAP_SYS_ADMIN over the mount namespace it reads), and sends it back over
the socket TREE_FD names."""

import ctypes
import os
import socket
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
uid, gid = os.geteuid(), os.getegid()
if libc.unshare(0x10000000 | 0x20000) != 0:
    sys.exit("unshare: " + os.strerror(ctypes.get_errno()))
for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)), ("gid_map", "%d %d 1" % (gid, gid))):
    with open("/proc/self/" + name, "w") as f:
        f.write(text)
tree = libc.syscall(428, -100, sys.argv[1].encode(), 1 | 0o2000000 | 0x8000)
if tree < 0:
    sys.exit("open_tree: " + os.strerror(ctypes.get_errno()))
socket.send_fds(socket.socket(fileno=int(os.environ["TREE_FD"])), [b"t"], [tree])
