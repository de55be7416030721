# SPDX-License-Identifier: GPL-2.0
# perf script -s handler: print every uevent the python engine is given.


def uevent(d):
    fields = {k: v for k, v in sorted(d.items()) if k != "payload"}
    print("UEVENT", fields, "payload", len(d["payload"]))
