"""Realistic order mails for the tests, written as the mail programs players use write them.

Each fixture in `FIXTURES` has a note saying what it is; `regenerate()` writes them all to
tests/data/mail/<name>.eml (run `python tests/mailfactory.py` after changing one), and
`test_mail_inbound.test_fixture_files_match_the_factory` fails when a file and its
builder drift apart. The bytes are spelled out by hand, headers and MIME included,
because the point is mail as it arrives (folded headers, CRLF from Outlook, 8-bit bytes,
broken structure), not mail as `email` would generate it.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).parent / "data" / "mail"


@dataclass(frozen=True)
class Fixture:
    note: str
    build: Callable[[], bytes]


def message(head: str, body: bytes | str, *, crlf: bool = False) -> bytes:
    """Header lines (one per line, folding kept) and a body, as bytes on the wire."""
    lines = head.strip("\n").split("\n")
    data = "\n".join(lines).encode("utf-8") + b"\n\n"
    data += body.encode("utf-8") if isinstance(body, str) else body
    return data.replace(b"\n", b"\r\n") if crlf else data


def b64(data: bytes) -> str:
    """Base64 in 76-character lines, as every mail program writes it."""
    return base64.encodebytes(data).decode("ascii")


REPORT_QUOTED = """\
> Snakes by mail - spring-2027 - turn 6 report
>
> Board A (100 squares)
>   alice    12 -> 18
>   bob      30 -> 27   NMR
>
> Trapdoor next turn: A 44
>
> Your standing order for turn 6:
> NUMBER 4
> TRAPDOOR A 12
>
> Orders for turn 7 by Sunday 29 November 2026 18:00 UTC.
"""

REPORT_UNQUOTED = "".join(line[2:] + "\n" for line in REPORT_QUOTED.splitlines())


def plain() -> bytes:
    return message(
        """
Return-Path: <alice@example.org>
Message-ID: <4f1e2d3c-1111-4a5b-9c8d-000000000001@example.org>
Date: Sun, 22 Nov 2026 17:02:11 +0100
MIME-Version: 1.0
User-Agent: Mozilla Thunderbird
From: Alice Liddell <Alice@Example.ORG>
To: Snakes GM <gm@example.org>
Subject: Re: spring-2027: turn 6 report
In-Reply-To: <turn-6.alice@gm.example.org>
References: <start.alice@gm.example.org>
 <turn-6.alice@gm.example.org>
Content-Type: text/plain; charset=UTF-8; format=flowed
Content-Transfer-Encoding: 7bit
""",
        """\
Hello GM,

GAME spring-2027
PLAYER alice
PASSWORD Tea-Party-6
TURN 7
NUMBER 3
TRAPDOOR A 44

Alice
""",
    )


def received() -> bytes:
    return message(
        """
Return-Path: <bob@example.org>
Delivered-To: gm@example.org
Received: from mx1.example.org (mx1.example.org [192.0.2.10])
\tby mail.example.org (Postfix) with ESMTPS id 4Cz1x2
\tfor <gm@example.org>; Sun, 22 Nov 2026 18:00:05 +0100 (CET)
Received: from smtp.example.net (smtp.example.net [198.51.100.7])
\tby mx1.example.org (Postfix) with ESMTP id 9Aa8b7
\tfor <gm@example.org>; Sun, 22 Nov 2026 16:59:58 +0000 (UTC)
Received: from [10.0.0.5] (unknown [203.0.113.9])
\tby smtp.example.net with ESMTPSA; Sun, 22 Nov 2026 11:59:50 -0500
Message-ID: <CAB0b+received+1@mail.example.net>
Date: Sun, 22 Nov 2026 11:50:00 -0500
From: bob@example.org
To: gm@example.org
Subject: orders
Content-Type: text/plain; charset="us-ascii"
""",
        "PLAYER bob\nPASSWORD s3cret-horse\nNUMBER 6\n",
    )


def no_message_id() -> bytes:
    return message(
        """
From: "Carol" <carol@example.org>
To: gm@example.org
Subject: turn 7
Date: Sun, 22 Nov 2026 17:30:00 -0000
""",
        "PLAYER carol\nPASSWORD x9\nNUMBER 2\n",
    )


def html_only() -> bytes:
    return message(
        """
Received: from web.example.com by mail.example.org; Sun, 22 Nov 2026 17:40:00 +0000
Message-ID: <1700000000.12345@webmail.example.com>
Date: Sun, 22 Nov 2026 17:39:58 +0000
From: Dinah <dinah@example.com>
To: gm@example.org
Subject: orders for turn 7
MIME-Version: 1.0
Content-Type: text/html; charset=UTF-8
Content-Transfer-Encoding: quoted-printable
""",
        """\
<html><head><meta http-equiv=3D"Content-Type" content=3D"text/html; charset=
=3DUTF-8"><style type=3D"text/css">body { font-family: Arial; } div { margi=
n: 0 }</style></head><body><div>Hi&nbsp;GM,</div><div><br></div><div>PLAYER=
&nbsp;dinah</div><div>PASSWORD&nbsp;Cat&amp;Mouse</div><div>NUMBER&nbsp;5</d=
iv><div>TRAPDOOR&nbsp;A&nbsp;37<br></div><div><br></div><div>Cheers &amp; g=
ood luck,<br>Dinah</div><script>alert("NUMBER 1")</script></body></html>
""",
    )


def iphone() -> bytes:
    return message(
        """
Content-Type: multipart/alternative; boundary=Apple-Mail-5B1C9E2A-1D3F-4C6B-8E2A-9F0B1C2D3E4F
Content-Transfer-Encoding: 7bit
From: Edith <edith@example.net>
Mime-Version: 1.0 (1.0)
Date: Sun, 22 Nov 2026 17:45:12 +0000
Subject: Re: spring-2027: turn 6 report
Message-Id: <5B1C9E2A-1D3F-4C6B-8E2A-9F0B1C2D3E4F@example.net>
References: <turn-6.edith@gm.example.org>
In-Reply-To: <turn-6.edith@gm.example.org>
To: Snakes GM <gm@example.org>
X-Mailer: iPhone Mail (21A360)
""",
        """\

--Apple-Mail-5B1C9E2A-1D3F-4C6B-8E2A-9F0B1C2D3E4F
Content-Type: text/plain;
\tcharset=utf-8
Content-Transfer-Encoding: quoted-printable

Player edith
Password Lory=E2=80=99s-Key
Number 2
Trapdoor A 44

Sent from my iPhone

> On 22 Nov 2026, at 17:05, Snakes GM <gm@example.org> wrote:
>=20
> =EF=BB=BFSnakes by mail - spring-2027 - turn 6 report
> NUMBER 4
--Apple-Mail-5B1C9E2A-1D3F-4C6B-8E2A-9F0B1C2D3E4F
Content-Type: text/html;
\tcharset=utf-8
Content-Transfer-Encoding: quoted-printable

<html><head><meta http-equiv=3D"content-type" content=3D"text/html; charset=
=3Dutf-8"></head><body dir=3D"auto">Player edith<div>Password Lory=E2=80=99=
s-Key</div><div>Number 2</div><div>Trapdoor A 44</div><div><br><div dir=3D"=
ltr">Sent from my iPhone</div><div dir=3D"ltr"><br><blockquote type=3D"cite=
">On 22 Nov 2026, at 17:05, Snakes GM &lt;gm@example.org&gt; wrote:<br><br>=
</blockquote></div><blockquote type=3D"cite"><div dir=3D"ltr">=EF=BB=BFSnak=
es by mail - spring-2027 - turn 6 report<br>NUMBER 4</div></blockquote></di=
v></body></html>
--Apple-Mail-5B1C9E2A-1D3F-4C6B-8E2A-9F0B1C2D3E4F--
""",
    )


def gmail_reply() -> bytes:
    html_quote = "<br>".join(
        line[2:] if line.startswith("> ") else "" for line in REPORT_QUOTED.splitlines()
    )
    return message(
        """
MIME-Version: 1.0
References: <turn-6.frank@gm.example.org>
In-Reply-To: <turn-6.frank@gm.example.org>
From: Frank Baum <frank.baum@gmail.example>
Date: Sun, 22 Nov 2026 18:01:30 +0000
Message-ID: <CAJ+frank+reply+7@mail.gmail.example>
Subject: Re: spring-2027: turn 6 report
To: Snakes GM <gm@example.org>
Content-Type: multipart/alternative; boundary="000000000000a1b2c3d4e5f60718"
""",
        f"""\
--000000000000a1b2c3d4e5f60718
Content-Type: text/plain; charset="UTF-8"

PLAYER frank
PASSWORD Oz-1900
NUMBER 5
TRAPDOOR A 37

Thanks!

On Sun, 22 Nov 2026 at 17:05, Snakes GM <
gm@example.org> wrote:

{REPORT_QUOTED}
--000000000000a1b2c3d4e5f60718
Content-Type: text/html; charset="UTF-8"
Content-Transfer-Encoding: quoted-printable

<div dir=3D"ltr"><div>PLAYER frank</div><div>PASSWORD Oz-1900</div><div>NUM=
BER 5</div><div>TRAPDOOR A 37</div><div><br></div><div>Thanks!</div></div><=
br><div class=3D"gmail_quote"><div dir=3D"ltr" class=3D"gmail_attr">On Sun,=
 22 Nov 2026 at 17:05, Snakes GM &lt;<a href=3D"mailto:gm@example.org">gm@e=
xample.org</a>&gt; wrote:<br></div><blockquote class=3D"gmail_quote" style=
=3D"margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding=
-left:1ex">{html_quote}</blockquote></div>

--000000000000a1b2c3d4e5f60718--
""",
    )


def quoted_printable() -> bytes:
    return message(
        """
From: Gudrun <gudrun@example.de>
To: gm@example.org
Subject: =?UTF-8?Q?Z=C3=BCge_f=C3=BCr_Runde_7?=
Message-ID: <qp.7@example.de>
Date: Sun, 22 Nov 2026 19:00:00 +0100
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable
""",
        """\
Hallo Spielleiter, hier sind meine Z=C3=BCge f=C3=BCr diese Runde, wie imme=
r etwas sp=C3=A4t.
PLAYER gudrun
PASSWORD Gr=C3=BCn-Tee
Gl=C3=BCckszahl: 2+2=3D4
NUMBER 4
""",
    )


def base64_body() -> bytes:
    text = "PLAYER hanna\nPASSWORD b4se-sixty\nNUMBER 1\nTRAPDOOR NONE\n\nSent from my Android\n"
    return message(
        """
From: hanna@example.com
To: gm@example.org
Subject: Orders
Message-ID: <b64.1@android.example.com>
Date: Sun, 22 Nov 2026 19:05:00 +0000
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: base64
""",
        b64(text.encode("utf-8")),
    )


def latin1() -> bytes:
    return message(
        """
From: =?iso-8859-1?q?J=FCrgen_M=FCller?= <juergen@example.de>
To: gm@example.org
Subject: =?iso-8859-1?q?Gr=FC=DFe?=
Message-ID: <latin1.7@example.de>
Date: Sun, 22 Nov 2026 19:10:00 +0100
MIME-Version: 1.0
Content-Type: text/plain; charset=ISO-8859-1
Content-Transfer-Encoding: 8bit
""",
        "Grüße aus Köln!\nPLAYER jürgen\nPASSWORD Süß\nNUMBER 6\n".encode("iso-8859-1"),
    )


def windows1252() -> bytes:
    return message(
        """
From: "O'Brien, Kate" <kate@example.ie>
To: "gm@example.org" <gm@example.org>
Subject: turn 7
Message-ID: <DB9PR01MB0001.eurprd01.prod.outlook.example@DB9PR01MB0001>
Date: Sun, 22 Nov 2026 19:12:00 +0000
MIME-Version: 1.0
Content-Type: text/plain; charset="Windows-1252"
Content-Transfer-Encoding: quoted-printable
""",
        """\
=93Fingers crossed=94 =96 last time cost me =8010 in biscuits=85
PLAYER kate
PASSWORD shamrock
NUMBER 3
""",
        crlf=True,
    )


def utf8() -> bytes:
    body = "Hej! 🎲\nPLAYER lars\nPASSWORD Smørrebrød\nNUMBER\u00a02\nTRAP\u200bDOOR A 50\nTRAPDOOR\u00a0B\u00a051\n"
    return message(
        """
From: Lars <lars@example.dk>
To: gm@example.org
Subject: =?utf-8?b?VMO4cm4gNw==?=
Message-ID: <utf8.7@example.dk>
Date: Sun, 22 Nov 2026 19:15:00 +0100
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit
""",
        body.encode("utf-8"),
    )


def outlook_reply() -> bytes:
    plain_part = f"""\
GAME spring-2027
PLAYER mary
PASSWORD Pop-Pins
NUMBER 3

Mary

-----Original Message-----
From: Snakes GM <gm@example.org>
Sent: Sunday, November 22, 2026 5:05 PM
To: mary@example.co.uk
Subject: spring-2027: turn 6 report

{REPORT_UNQUOTED}"""
    report_html = "".join(
        f'<p class=3D"MsoNormal">{line or "&nbsp;"}<o:p></o:p></p>\n'
        for line in REPORT_UNQUOTED.splitlines()
    )
    html_part = f"""\
<html xmlns:o=3D"urn:schemas-microsoft-com:office:office"><head><style><!--
p.MsoNormal {{margin:0cm; font-size:11.0pt;}}
--></style></head><body lang=3D"EN-GB"><div class=3D"WordSection1">
<p class=3D"MsoNormal">GAME spring-2027<o:p></o:p></p>
<p class=3D"MsoNormal">PLAYER mary<o:p></o:p></p>
<p class=3D"MsoNormal">PASSWORD Pop-Pins<o:p></o:p></p>
<p class=3D"MsoNormal">NUMBER 3<o:p></o:p></p>
<p class=3D"MsoNormal"><o:p>&nbsp;</o:p></p>
<p class=3D"MsoNormal">Mary<o:p></o:p></p>
<div style=3D"border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm =
0cm 0cm"><p class=3D"MsoNormal"><b>From:</b> Snakes GM &lt;gm@example.org&g=
t; <br><b>Sent:</b> Sunday, November 22, 2026 5:05 PM<br><b>To:</b> mary@ex=
ample.co.uk<br><b>Subject:</b> spring-2027: turn 6 report<o:p></o:p></p></d=
iv>
{report_html}</div></body></html>
"""
    return message(
        """
From: Mary Poppins <mary@example.co.uk>
To: Snakes GM <gm@example.org>
Subject: RE: spring-2027: turn 6 report
Thread-Topic: spring-2027: turn 6 report
Thread-Index: AQHZ1234567890abcdef==
Date: Sun, 22 Nov 2026 17:20:44 +0000
Message-ID: <AM0PR01MB1234ABCD@AM0PR01MB1234.eurprd01.prod.outlook.example>
References: <turn-6.mary@gm.example.org>
In-Reply-To: <turn-6.mary@gm.example.org>
Accept-Language: en-GB, en-US
Content-Language: en-GB
X-MS-Has-Attach:
X-Auto-Response-Suppress: All
Content-Type: multipart/alternative;
\tboundary="_000_AM0PR01MB1234ABCD_"
MIME-Version: 1.0
""",
        f"""\
--_000_AM0PR01MB1234ABCD_
Content-Type: text/plain; charset="Windows-1252"
Content-Transfer-Encoding: quoted-printable

{plain_part}
--_000_AM0PR01MB1234ABCD_
Content-Type: text/html; charset="Windows-1252"
Content-Transfer-Encoding: quoted-printable

{html_part}
--_000_AM0PR01MB1234ABCD_--
""",
        crlf=True,
    )


def thunderbird_flowed() -> bytes:
    # Soft breaks end in a space; the second line starts with a command word only because
    # the program wrapped there. The "From " line is space-stuffed, as RFC 3676 asks.
    return message(
        """
From: Xavier <xavier@example.org>
To: gm@example.org
Subject: Re: spring-2027: turn 6 report
Message-ID: <flowed.7@example.org>
Date: Sun, 22 Nov 2026 19:22:00 +0000
User-Agent: Mozilla Thunderbird
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8; format=flowed
Content-Transfer-Encoding: 7bit
""",
        """\
PLAYER xavier
PASSWORD x-marks-the-spot
NUMBER 6

I kept the six for last, as everyone said I would, and unlike last turn's\x20
NUMBER 4 it should carry me past the snake on 62.
 From now on I will send orders earlier.

On 22/11/2026 17:05, Snakes GM wrote:
> Your standing order for turn 6: NUMBER 4, and a trapdoor on square\x20
> 12 of board A.
""",
    )


def signature() -> bytes:
    return message(
        """
From: Nick <nick@example.org>
To: gm@example.org
Subject: orders
Message-ID: <sig.7@example.org>
Date: Sun, 22 Nov 2026 19:20:00 +0000
Content-Type: text/plain; charset=us-ascii
""",
        """\
PLAYER nick
PASSWORD n1ck-of-time
NUMBER 1

--\x20
Nick Bottom -- weaver, player, snake charmer
My lucky command: NUMBER 6
NUMBER 6
""",
    )


PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def attachment() -> bytes:
    pdf = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
    return message(
        """
From: Olive <olive@example.org>
To: gm@example.org
Subject: orders + my board sketch
Message-ID: <attach.7@example.org>
Date: Sun, 22 Nov 2026 19:25:00 +0000
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="----=_Part_1_2_3"
""",
        f"""\
This is a multi-part message in MIME format.
------=_Part_1_2_3
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 7bit

PLAYER olive
PASSWORD 0live-0il
NUMBER 5
See the attached sketch of where I think the snakes are.
------=_Part_1_2_3
Content-Type: application/pdf; name="sketch.pdf"
Content-Disposition: attachment; filename="sketch.pdf"
Content-Transfer-Encoding: base64

{b64(pdf)}------=_Part_1_2_3
Content-Type: image/png; name="board.png"
Content-Disposition: inline; filename="board.png"
Content-Transfer-Encoding: base64

{b64(PNG_1X1)}------=_Part_1_2_3
Content-Type: text/plain; charset=utf-8; name="notes.txt"
Content-Disposition: attachment; filename="notes.txt"

NUMBER 1
------=_Part_1_2_3--
""",
    )


def broken_base64() -> bytes:
    good = b64(b"PLAYER pat\nPASSWORD pa55\nNUMBER 2\n").strip()
    return message(
        """
From: pat@example.org
To: gm@example.org
Subject: orders
Message-ID: <badb64.7@example.org>
Date: Sun, 22 Nov 2026 19:30:00 +0000
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: base64
""",
        # A relay mangled the tail: characters outside the alphabet and no padding.
        good + "\nVFJBUERPT1IgQSA0!!*\n",
    )


def broken_charset() -> bytes:
    return message(
        """
From: quentin@example.org
To: gm@example.org
Subject: orders
Message-ID: <charset.7@example.org>
Date: Sun, 22 Nov 2026 19:35:00 +0000
MIME-Version: 1.0
Content-Type: text/plain; charset="x-klingon-1"
Content-Transfer-Encoding: 8bit
""",
        "PLAYER quentin\nPASSWORD qapla’\nNUMBER 4\n".encode(),
    )


def broken_boundary() -> bytes:
    return message(
        """
From: rosa@example.org
To: gm@example.org
Subject: orders
Message-ID: <boundary.7@example.org>
Date: Sun, 22 Nov 2026 19:40:00 +0000
MIME-Version: 1.0
Content-Type: multipart/alternative
""",
        """\
--=_rosa_mailer_boundary
Content-Type: text/plain; charset=us-ascii

PLAYER rosa
PASSWORD r0sa
NUMBER 6
--=_rosa_mailer_boundary
Content-Type: text/html; charset=us-ascii

<p>PLAYER rosa<br>PASSWORD r0sa<br>NUMBER 6</p>
--=_rosa_mailer_boundary--
""",
    )


def broken_8bit_headers() -> bytes:
    head = (
        "From: Sören Ölund <soren@example.se>\n"
        "To: gm@example.org\n"
        "Subject: Drag 7 – tärning\n"
        "Message-ID: <8bit.7@example.se>\n"
        "Date: Sun, 22 Nov 2026 19:45:00 +0100\n"
        "Content-Type: text/plain\n"
    ).encode()
    # One more header in Latin-1, as an old relay might add it.
    head += "X-Comment: café\n".encode("iso-8859-1")
    return head + b"\n" + "PLAYER sören\nPASSWORD björn\nNUMBER 5\n".encode()


def broken_truncated() -> bytes:
    return message(
        """
From: tess@example.org
To: gm@example.org
Subject: orders
Message-ID: <truncated.7@example.org>
Date: Sun, 22 Nov 2026 19:50:00 +0000
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="b1"
""",
        # The message stops mid-attachment: no closing boundary.
        """\
--b1
Content-Type: text/plain

PLAYER tess
PASSWORD t3ss
NUMBER 3
--b1
Content-Type: application/octet-stream
Content-Transfer-Encoding: base64

AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4v
""",
    )


def oversize() -> bytes:
    filler = "".join(f"line {i:05d}: the same square again and again.\n" for i in range(1500))
    return message(
        """
From: uma@example.org
To: gm@example.org
Subject: orders and my thoughts on every square
Message-ID: <oversize.7@example.org>
Date: Sun, 22 Nov 2026 19:55:00 +0000
Content-Type: text/plain; charset=us-ascii
""",
        "PLAYER uma\nPASSWORD um4\nNUMBER 2\n\n" + filler,
    )


def auto_replied() -> bytes:
    return message(
        """
Return-Path: <>
From: Victor <victor@example.org>
To: gm@example.org
Subject: Automatic reply: spring-2027: turn 6 report
Message-ID: <ooo.1@example.org>
Date: Sun, 22 Nov 2026 17:05:30 +0000
Auto-Submitted: auto-replied
X-Auto-Response-Suppress: All
Content-Type: text/plain; charset=us-ascii
""",
        "I am out of the office until 1 December.\n\n> NUMBER 4\n",
    )


def vacation_bulk() -> bytes:
    return message(
        """
From: Wendy <wendy@example.org>
To: gm@example.org
Subject: On holiday (Re: spring-2027: turn 6 report)
Message-ID: <vacation.1@example.org>
Date: Sun, 22 Nov 2026 17:05:31 +0000
Precedence: bulk
X-Mailer: vacation 1.2.7
Content-Type: text/plain; charset=us-ascii
""",
        "I'm away at Neverland. NUMBER 4 as usual, please.\nNUMBER 4\n",
    )


def bounce() -> bytes:
    return message(
        """
Return-Path: <>
Received: by mail.example.org (Postfix) id 1A2B3C4D; Sun, 22 Nov 2026 17:06:00 +0000 (UTC)
Date: Sun, 22 Nov 2026 17:06:00 +0000 (UTC)
From: MAILER-DAEMON@mail.example.org (Mail Delivery System)
Subject: Undelivered Mail Returned to Sender
To: gm@example.org
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
\tboundary="1A2B3C4D.1763830000/mail.example.org"
Message-Id: <20261122170600.1A2B3C4D@mail.example.org>
""",
        """\
This is a MIME-encapsulated message.

--1A2B3C4D.1763830000/mail.example.org
Content-Description: Notification
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mail.example.org.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

<Bob@Example.org>: host mx.example.org[192.0.2.25] said: 550 5.1.1
    <bob@example.org>: Recipient address rejected: User unknown

--1A2B3C4D.1763830000/mail.example.org
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; mail.example.org
X-Postfix-Queue-ID: 1A2B3C4D
Arrival-Date: Sun, 22 Nov 2026 17:05:58 +0000 (UTC)

Final-Recipient: rfc822; bob@example.org
Original-Recipient: rfc822;Bob@Example.org
Action: failed
Status: 5.1.1
Remote-MTA: dns; mx.example.org
Diagnostic-Code: smtp; 550 5.1.1 <bob@example.org>: User unknown

Final-Recipient: rfc822; carol@slow.example.net
Action: delayed
Status: 4.4.1

--1A2B3C4D.1763830000/mail.example.org
Content-Description: Undelivered Message Headers
Content-Type: text/rfc822-headers

From: Snakes GM <gm@example.org>
To: bob@example.org
Subject: spring-2027: turn 6 report
Auto-Submitted: auto-replied

--1A2B3C4D.1763830000/mail.example.org--
""",
    )


FIXTURES: dict[str, Fixture] = {
    "plain": Fixture("Thunderbird plain text, a complete order, References folded", plain),
    "received": Fixture("three Received: headers; the topmost is our server's", received),
    "no_message_id": Fixture("no Message-ID, Date in -0000 (UTC, zone unknown)", no_message_id),
    "html_only": Fixture("webmail HTML only: <div>s, &nbsp;, &amp;, a script", html_only),
    "iphone": Fixture("iPhone multipart/alternative, QP UTF-8, 'Sent from my iPhone'", iphone),
    "gmail_reply": Fixture(
        "Gmail reply over the last turn report: '>' lines holding NUMBER, wrapped attribution",
        gmail_reply,
    ),
    "quoted_printable": Fixture(
        "UTF-8 quoted-printable with soft breaks and =3D", quoted_printable
    ),
    "base64": Fixture("Android-style base64 UTF-8 body", base64_body),
    "latin1": Fixture("ISO-8859-1 8-bit body and RFC 2047 Latin-1 headers", latin1),
    "windows1252": Fixture(
        "windows-1252 quoted-printable, CRLF, smart quotes and euro", windows1252
    ),
    "utf8": Fixture("8-bit UTF-8 with emoji, no-break and zero-width spaces", utf8),
    "outlook_reply": Fixture(
        "Outlook reply: -----Original Message----- over an unquoted report, CRLF", outlook_reply
    ),
    "thunderbird_flowed": Fixture(
        "Thunderbird format=flowed: a soft break before a command word, space-stuffing",
        thunderbird_flowed,
    ),
    "signature": Fixture("a signature that holds command lines", signature),
    "attachment": Fixture("multipart/mixed: text, a PDF, an inline PNG, a .txt file", attachment),
    "broken_base64": Fixture("base64 body with bad characters and no padding", broken_base64),
    "broken_charset": Fixture("an unknown declared charset over UTF-8 bytes", broken_charset),
    "broken_boundary": Fixture("multipart/alternative that declares no boundary", broken_boundary),
    "broken_8bit_headers": Fixture("raw UTF-8 and Latin-1 bytes in headers", broken_8bit_headers),
    "broken_truncated": Fixture("multipart cut off mid-attachment", broken_truncated),
    "oversize": Fixture("over 64 KiB of plain text", oversize),
    "auto_replied": Fixture(
        "Outlook-style out-of-office: Auto-Submitted: auto-replied", auto_replied
    ),
    "vacation_bulk": Fixture("old vacation(1) reply: Precedence: bulk only", vacation_bulk),
    "bounce": Fixture("Postfix bounce: multipart/report, one failed, one delayed", bounce),
}


def load(name: str) -> bytes:
    return (DATA / f"{name}.eml").read_bytes()


def regenerate(directory: Path = DATA) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, fixture in FIXTURES.items():
        path = directory / f"{name}.eml"
        path.write_bytes(fixture.build())
        written.append(path)
    return written


if __name__ == "__main__":
    for path in regenerate():
        print(path)
