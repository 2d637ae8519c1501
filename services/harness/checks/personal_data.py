"""Realistic personal data for the isolation check (pure, seeded).

Every value is valid by the rules a real system would apply: resident IDs carry a real
region code, a real birth date and the GB 11643 (ISO 7064 MOD 11-2) check character; bank
cards a real issuer prefix and the Luhn check digit; mobile and fixed-line numbers are
accepted as such by Google's libphonenumber metadata. Values are written the ways people
write them (spaces, dashes, +86, brackets, full-width digits), and each value knows its
*search form*: the canonical text a scan looks for whatever the formatting (digits only,
lower case), see :func:`search_form`.

Nothing here ever logs a value; callers report counts and kinds only.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

import phonenumbers
from stdnum import luhn
from stdnum.cn import ric

from services.core.redaction import PiiKind

# Real county-level division codes (GB/T 2260): Beijing Dongcheng, Shanghai Xuhui,
# Shenzhen Futian, Hangzhou Xihu, Chengdu Wuhou, Wuhan Wuchang, Nanjing Xuanwu, Xi'an
# Yanta, Guangzhou Tianhe, Tianjin Heping, Shenzhen Nanshan, Changsha Yuelu.
_REGION_CODES = (
    "110101",
    "310104",
    "440304",
    "330106",
    "510107",
    "420106",
    "320102",
    "610113",
    "440106",
    "120101",
    "440305",
    "430104",
)
_MOBILE_PREFIXES = tuple(
    str(prefix)
    for prefix in (
        *range(130, 140),
        *(150, 151, 152, 153, 155, 156, 157, 158, 159, 166, 173, 175, 176, 177, 178),
        *range(180, 190),
        *(191, 195, 198, 199),
    )
)
# Area code → subscriber number length (Beijing, Shanghai, Guangzhou, Tianjin, Chongqing,
# Nanjing, Wuhan, Chengdu, Xi'an, Shenzhen, Hangzhou, Suzhou, Changsha).
_AREA_CODES = {
    "010": 8,
    "021": 8,
    "020": 8,
    "022": 8,
    "023": 8,
    "025": 8,
    "027": 8,
    "028": 8,
    "029": 8,
    "0755": 8,
    "0571": 8,
    "0512": 8,
    "0731": 8,
}
# Issuer identification numbers of mainland banks (debit 19 digits, credit 16).
_CARD_PREFIXES = (
    ("622202", 19),
    ("621700", 19),
    ("622848", 19),
    ("621483", 16),
    ("622588", 16),
    ("436742", 16),
    ("625807", 16),
    ("621226", 19),
)
_EMAIL_DOMAINS = ("qq.com", "163.com", "126.com", "gmail.com", "outlook.com", "foxmail.com")
_PINYIN = (
    *("wang", "li", "zhang", "liu", "chen", "yang", "huang", "zhao", "wu", "zhou", "xu"),
    *("sun", "ma", "zhu", "hu", "guo", "he", "gao", "lin", "luo", "wei", "fang", "min"),
    *("jing", "qiang", "lei", "jun", "yong", "yan", "jie", "juan", "tao", "ming", "chao"),
)
_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓"
    "曹彭曾萧田董袁潘蒋蔡余杜叶程苏魏吕丁沈姚卢姜崔钟谭陆汪范"
)
_GIVEN = (
    "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉萍红"
    "建国文辉力梅琳晨浩宇轩涵欣怡思雨嘉博俊鹏婷颖佳慧瑶鑫"
)

_FULL_WIDTH_DIGITS = str.maketrans({str(i): chr(0xFF10 + i) for i in range(10)})
#: Separators people put inside numbers; a search form has none of them.
SEPARATORS = re.compile(r"[\s\-()+/]+")


def search_form(text: str) -> str:
    """The canonical form a scan looks for: NFKC, lower case, no separators."""
    return SEPARATORS.sub("", unicodedata.normalize("NFKC", text).lower())


@dataclass(frozen=True, slots=True)
class PersonalValue:
    """One personal value as it is written into requests."""

    kind: PiiKind
    #: The value as sent (formatting included).
    text: str

    @property
    def canonical(self) -> str:
        return search_form(self.text)


class PersonalDataFactory:
    """Distinct, valid personal values from a seed.

    ``excluded_text`` is text the system legitimately holds (the catalog, the lexicon):
    a generated name that occurs in it is drawn again, so that finding it later is proof
    of a leak rather than a coincidence.
    """

    def __init__(self, seed: int, *, excluded_text: str = "") -> None:
        self._random = random.Random(seed)  # noqa: S311 - a reproducible workload, not a secret
        self._excluded = excluded_text
        self._issued: set[str] = set()

    def _take(self, kind: PiiKind, make: Callable[[], str]) -> PersonalValue:
        for _ in range(1000):
            value = PersonalValue(kind, make())
            if value.canonical not in self._issued:
                self._issued.add(value.canonical)
                return value
        raise RuntimeError(f"could not draw a new {kind.value} value")

    # -- kinds ----------------------------------------------------------------------

    def resident_id(self) -> PersonalValue:
        def make() -> str:
            born = date(1990, 1, 1) + timedelta(days=self._random.randrange(365 * 15))
            body = (
                self._random.choice(_REGION_CODES)
                + born.strftime("%Y%m%d")
                + f"{self._random.randrange(1000):03d}"
            )
            # stdnum's calc_check_digit expects a number with a (placeholder) check digit.
            number = body + ric.calc_check_digit(body + "0")
            assert ric.is_valid(number)
            if number.endswith("X") and self._random.random() < 0.5:
                return number.lower()
            return number

        return self._take(PiiKind.CN_ID, make)

    def mobile(self) -> PersonalValue:
        def make() -> str:
            while True:
                digits = self._random.choice(_MOBILE_PREFIXES) + "".join(
                    self._random.choice("0123456789") for _ in range(8)
                )
                parsed = phonenumbers.parse(digits, "CN")
                if (
                    phonenumbers.is_valid_number(parsed)
                    and phonenumbers.number_type(parsed) == phonenumbers.PhoneNumberType.MOBILE
                ):
                    break
            style = self._random.randrange(6)
            if style == 1:
                return f"{digits[:3]} {digits[3:7]} {digits[7:]}"
            if style == 2:
                return f"{digits[:3]}-{digits[3:7]}-{digits[7:]}"
            if style == 3:
                return f"+86 {digits}"
            if style == 4:
                return digits.translate(_FULL_WIDTH_DIGITS)
            return digits

        return self._take(PiiKind.CN_MOBILE, make)

    def landline(self) -> PersonalValue:
        def make() -> str:
            while True:
                area = self._random.choice(tuple(_AREA_CODES))
                local = self._random.choice("2345678") + "".join(
                    self._random.choice("0123456789") for _ in range(_AREA_CODES[area] - 1)
                )
                parsed = phonenumbers.parse(area + local, "CN")
                if phonenumbers.is_valid_number(parsed) and phonenumbers.number_type(parsed) in (
                    phonenumbers.PhoneNumberType.FIXED_LINE,
                    phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE,
                ):
                    break
            style = self._random.randrange(3)
            if style == 1:
                return f"({area}){local}"
            if style == 2:
                return f"{area} {local[:4]} {local[4:]}"
            return f"{area}-{local}"

        return self._take(PiiKind.CN_LANDLINE, make)

    def bank_card(self) -> PersonalValue:
        def make() -> str:
            prefix, length = self._random.choice(_CARD_PREFIXES)
            body = prefix + "".join(
                self._random.choice("0123456789") for _ in range(length - len(prefix) - 1)
            )
            number = body + luhn.calc_check_digit(body)
            assert luhn.is_valid(number)
            style = self._random.randrange(3)
            if style == 1:
                return " ".join(number[i : i + 4] for i in range(0, len(number), 4))
            if style == 2:
                return "-".join(number[i : i + 4] for i in range(0, len(number), 4))
            return number

        return self._take(PiiKind.BANK_CARD, make)

    def email(self) -> PersonalValue:
        def make() -> str:
            local = (
                self._random.choice(_PINYIN)
                + self._random.choice(("", ".", "_"))
                + self._random.choice(_PINYIN)
                + str(self._random.randrange(10, 99999))
            )
            domain = self._random.choice(_EMAIL_DOMAINS)
            address = f"{local}@{domain}"
            return address.capitalize() if self._random.random() < 0.2 else address

        return self._take(PiiKind.EMAIL, make)

    def person(self) -> PersonalValue:
        def make() -> str:
            while True:
                name = (
                    self._random.choice(_SURNAMES)
                    + self._random.choice(_GIVEN)
                    + self._random.choice(_GIVEN)
                )
                if name[1] != name[2] and name not in self._excluded:
                    return name

        return self._take(PiiKind.PERSON, make)

    def of_kind(self, kind: PiiKind) -> PersonalValue:
        makers = {
            PiiKind.CN_ID: self.resident_id,
            PiiKind.CN_MOBILE: self.mobile,
            PiiKind.CN_LANDLINE: self.landline,
            PiiKind.BANK_CARD: self.bank_card,
            PiiKind.EMAIL: self.email,
            PiiKind.PERSON: self.person,
        }
        return makers[kind]()


GENERATED_KINDS = (
    PiiKind.CN_ID,
    PiiKind.CN_MOBILE,
    PiiKind.CN_LANDLINE,
    PiiKind.BANK_CARD,
    PiiKind.EMAIL,
    PiiKind.PERSON,
)

# Sentences that carry a value next to a product question ({q}); names get a cue (我叫,
# 联系人, 收件人, 先生/女士) as people write them.
_PHRASES: dict[PiiKind, tuple[str, ...]] = {
    PiiKind.CN_ID: ("{q}，身份证号{v}能开发票吗", "实名认证{v}，{q}", "{q} 证件号 {v}"),
    PiiKind.CN_MOBILE: ("{q} 我的手机号{v}", "{q}，有货请打{v}通知我", "手机 {v}，{q}"),
    PiiKind.CN_LANDLINE: ("{q} 座机{v}", "{q}，联系电话{v}", "公司电话{v}，{q}"),
    PiiKind.BANK_CARD: ("用卡{v}付款，{q}", "{q} 银行卡{v}能分期吗", "{q}，卡号 {v}"),
    PiiKind.EMAIL: ("{q} 结果发到{v}", "{q}，邮箱{v}", "email me at {v}: {q}"),
    PiiKind.PERSON: ("我叫{v}，{q}", "{q} 联系人{v}", "收件人{v}，{q}", "{v}女士想问：{q}"),
}


def phrase_with(value: PersonalValue, question: str, choice: random.Random) -> str:
    """A question that carries ``value`` the way a customer would write it."""
    template = choice.choice(_PHRASES[value.kind])
    return template.format(q=question, v=value.text)
