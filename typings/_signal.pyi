# The C half of ``signal``, imported directly by chatcli where ``signal`` would cost start-up
# time (it builds its enums). typeshed has no stub for it; these are the functions it provides.
from signal import SIGINT as SIGINT
from signal import getsignal as getsignal
from signal import signal as signal
